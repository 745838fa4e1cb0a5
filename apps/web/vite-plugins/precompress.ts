import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin, ResolvedConfig } from 'vite';

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** index.html is left out: the server injects the app configuration into it and compresses it itself. */
const compressible = /\.(?:js|mjs|css|svg|json|webmanifest|txt)$/;

async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && compressible.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/**
 * Writes `.br` and `.gz` next to every text file of the build, at the highest levels (done once,
 * at build time), for the server's `preCompressed` static files (apps/server/src/web.ts). A
 * variant that would not be smaller than the file is not written, so the plain file is served.
 */
export function precompress(): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'entry-precompress',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    closeBundle: {
      // After vite-plugin-pwa has written sw.js and its workbox runtime in its own closeBundle.
      order: 'post',
      sequential: true,
      async handler() {
        const outDir = path.resolve(config.root, config.build.outDir);
        for (const file of await filesUnder(outDir)) {
          const content = await readFile(file);
          const variants: [string, Buffer][] = [
            [
              '.br',
              await brotli(content, {
                params: {
                  [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
                  [constants.BROTLI_PARAM_SIZE_HINT]: content.length,
                },
              }),
            ],
            ['.gz', await gzipAsync(content, { level: constants.Z_BEST_COMPRESSION })],
          ];
          for (const [extension, compressed] of variants) {
            if (compressed.length < content.length) await writeFile(`${file}${extension}`, compressed);
          }
        }
      },
    },
  };
}
