/**
 * The server's dependencies (Fastify's cookie and content-disposition among them) declare Node 22 or
 * later, and Node 20 is past its end of life: an older Node is refused at the start, by name, instead
 * of failing somewhere later. Imported first by `main.ts`.
 */
const oldestMajor = 22;

const major = Number(process.versions.node.split('.')[0]);
if (major < oldestMajor) {
  process.stderr.write(
    `The server needs Node ${oldestMajor} or later (it is built and tested on Node 24); this is Node ${process.versions.node}.\n`,
  );
  process.exit(1);
}
