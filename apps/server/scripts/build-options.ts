import path from 'node:path';
import type { BuildOptions, Plugin } from 'esbuild';

export const serverRoot = path.resolve(import.meta.dirname, '..');

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

/** How the server is bundled into `outdir`: `main.js`, `db/pglite-worker.js` and their chunks. */
export function serverBuildOptions(outdir: string): BuildOptions {
  return {
    absWorkingDir: serverRoot,
    entryPoints: ['src/main.ts', 'src/db/pglite-worker.ts'],
    outbase: 'src',
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // A module the server imports only when needed (traces, the embedded database) becomes a chunk
    // of its own: bundled inline, the libraries it imports would load at every start (decision
    // record 044).
    splitting: true,
    chunkNames: '[name]-[hash]',
    target: 'node22',
    // Class names as written: pino logs an error's `type` from its constructor's name.
    keepNames: true,
    plugins: [dependenciesFromNodeModules],
    logLevel: 'warning',
  };
}
