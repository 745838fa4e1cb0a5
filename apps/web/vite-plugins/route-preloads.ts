import path from 'node:path';
import type { Plugin, ResolvedConfig, Rolldown } from 'vite';

type OutputBundle = Rolldown.OutputBundle;
type OutputChunk = Rolldown.OutputChunk;

/** Written next to index.html; apps/server/src/web.ts reads it. */
export const routePreloadsFile = 'route-preloads.json';

/** Path prefix -> the source modules (relative to apps/web) a document under it is sure to load. */
export type RoutePreloadModules = Record<string, string[]>;

function chunksOf(bundle: OutputBundle): OutputChunk[] {
  return Object.values(bundle).filter((output): output is OutputChunk => output.type === 'chunk');
}

/** A chunk and every chunk it imports statically, the way the browser has to load them. */
function withStaticImports(
  chunk: OutputChunk,
  byFile: Map<string, OutputChunk>,
  into: Set<OutputChunk>,
): void {
  if (into.has(chunk)) return;
  into.add(chunk);
  for (const file of chunk.imports) {
    const imported = byFile.get(file);
    if (imported !== undefined) withStaticImports(imported, byFile, into);
  }
}

/**
 * Lists, per path prefix, the lazily loaded chunks and styles of the pages under it, so the
 * server can announce them in index.html (`<link rel="modulepreload">`) and the browser fetches
 * them together with the entry chunk instead of one level after another once React asks for them
 * (Lighthouse on `/c/verify-identity`, DESIGN.md section 8). What the entry chunk loads itself is
 * left out; the entry page `/` gets nothing extra.
 */
export function routePreloads(routes: RoutePreloadModules): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'entry-route-preloads',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    generateBundle(_options, bundle) {
      const chunks = chunksOf(bundle);
      const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      const loadedByEntry = new Set<OutputChunk>();
      for (const chunk of chunks.filter((candidate) => candidate.isEntry)) {
        withStaticImports(chunk, byFile, loadedByEntry);
      }
      const preloads: Record<string, string[]> = {};
      for (const [prefix, modules] of Object.entries(routes)) {
        const needed = new Set<OutputChunk>();
        for (const module of modules) {
          const id = path.resolve(config.root, module);
          const chunk = chunks.find((candidate) => candidate.facadeModuleId === id);
          if (chunk === undefined) this.error(`route-preloads: no chunk is built from ${module}`);
          withStaticImports(chunk, byFile, needed);
        }
        const files = [...needed]
          .filter((chunk) => !loadedByEntry.has(chunk))
          .flatMap((chunk) => [chunk.fileName, ...(chunk.viteMetadata?.importedCss ?? [])]);
        preloads[prefix] = [...new Set(files)].map((file) => `${config.base}${file}`);
      }
      this.emitFile({ type: 'asset', fileName: routePreloadsFile, source: JSON.stringify(preloads) });
    },
  };
}
