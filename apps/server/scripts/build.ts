import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { buildRecordFile, sourcesDigest } from '../src/build-check.ts';
import { serverBuildOptions, serverRoot } from './build-options.ts';

const dist = path.join(serverRoot, 'dist');
const repositoryRoot = path.resolve(serverRoot, '..', '..');

/**
 * Builds the server into apps/server/dist: `main.js` (the server and its commands), the chunks
 * it imports when needed,
 * `db/pglite-worker.js` (the embedded database's thread, which `pglite-thread.ts` starts from
 * beside `main.js`), the migrations, copied where the bundled `migrationFiles` reads them, and the
 * digest of the sources it was made from, which the build checks when it starts.
 * `npm start` and a deployment run the build, with no TypeScript loader in the process (decision
 * record 016).
 */
await rm(dist, { recursive: true, force: true });
const sources = sourcesDigest(repositoryRoot);
await build(serverBuildOptions(dist));
await cp(path.join(serverRoot, 'src/db/migrations'), path.join(dist, 'migrations'), { recursive: true });
await writeFile(path.join(dist, buildRecordFile), `${JSON.stringify({ sources })}\n`);
