import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { buildRecordFile, sourcesDigest } from '../src/build-check.ts';

const serverRoot = path.resolve(import.meta.dirname, '..');
const dist = path.join(serverRoot, 'dist');
const repositoryRoot = path.resolve(serverRoot, '..', '..');

/**
 * Bare imports stay imports, resolved from node_modules when the server starts, as before; only
 * the workspace's own packages, which are TypeScript sources, go into the build. One copy of each
 * dependency either way, so a zod schema of `@entry/domain` is one the type provider knows.
 */
const dependenciesFromNodeModules: Plugin = {
  name: 'dependencies-from-node-modules',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@entry/') ? undefined : { path: args.path, external: true },
    );
  },
};

/**
 * Builds the server into apps/server/dist: `main.js` (the server and its commands),
 * `db/pglite-worker.js` (the embedded database's thread, which `pglite-thread.ts` starts from
 * beside `main.js`), the migrations, copied where the bundled `migrationFiles` reads them, and the
 * digest of the sources it was made from, which the build checks when it starts.
 * `npm start` and a deployment run the build, with no TypeScript loader in the process (decision
 * record 016).
 */
await rm(dist, { recursive: true, force: true });
const sources = sourcesDigest(repositoryRoot);
await build({
  absWorkingDir: serverRoot,
  entryPoints: ['src/main.ts', 'src/db/pglite-worker.ts'],
  outbase: 'src',
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  // A module the server imports only when needed (traces, the embedded database) becomes a chunk of
  // its own: bundled inline, the libraries it imports would load at every start (decision record 044).
  splitting: true,
  chunkNames: '[name]-[hash]',
  target: 'node22',
  // Class names as written: pino logs an error's `type` from its constructor's name.
  keepNames: true,
  plugins: [dependenciesFromNodeModules],
  logLevel: 'warning',
});
await cp(path.join(serverRoot, 'src/db/migrations'), path.join(dist, 'migrations'), { recursive: true });
await writeFile(path.join(dist, buildRecordFile), `${JSON.stringify({ sources })}\n`);
