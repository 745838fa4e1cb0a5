import path from 'node:path';
import type { Plugin, ResolvedConfig, Rolldown } from 'vite';

type OutputBundle = Rolldown.OutputBundle;
type OutputChunk = Rolldown.OutputChunk;

/** Written next to index.html; apps/server/src/web.ts reads it. */
export const routePreloadsFile = 'route-preloads.json';

/** Path prefix -> the source modules (relative to apps/web) a document under it is sure to load. */
export type RoutePreloadModules = Record<string, string[]>;

/** What a document under a path prefix announces, as URLs. */
export interface RouteFiles {
  /** Scripts (`modulepreload`) and styles (`preload`) the page's lazy chunks need. */
  preload: string[];
  /** Chunks that import nothing, started as module scripts of their own (`async`). */
  start: string[];
}

export interface RoutePreloadOptions {
  /**
   * Chunks (groups of `build.rolldownOptions.output.codeSplitting`) started as module scripts of
   * their own, so the browser evaluates them while the entry chunk still downloads. Each must
   * import nothing, or it would wait for the entry chunk all the same.
   */
  start?: readonly string[];
}

/** The part of an output chunk the listing reads. */
export type ChunkFacts = Pick<OutputChunk, 'fileName' | 'name' | 'isEntry' | 'imports' | 'facadeModuleId'> & {
  viteMetadata?: { importedCss: Set<string> } | undefined;
};

/** A chunk and every chunk it imports statically, the way the browser has to load them. */
function withStaticImports<T extends ChunkFacts>(chunk: T, byFile: Map<string, T>, into: Set<T>): void {
  if (into.has(chunk)) return;
  into.add(chunk);
  for (const file of chunk.imports) {
    const imported = byFile.get(file);
    if (imported !== undefined) withStaticImports(imported, byFile, into);
  }
}

/**
 * Per path prefix, the files of the chunks built from `routes`' modules and of everything they
 * import, less what the entry chunk loads itself. `moduleIdOf` turns a module of `routes` into
 * the id a chunk's `facadeModuleId` holds.
 */
export function listRouteFiles<T extends ChunkFacts>(
  chunks: readonly T[],
  routes: RoutePreloadModules,
  moduleIdOf: (module: string) => string,
  options: RoutePreloadOptions = {},
  base = '/',
): Record<string, RouteFiles> {
  const byFile = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
  const loadedByEntry = new Set<T>();
  for (const chunk of chunks.filter((candidate) => candidate.isEntry)) {
    withStaticImports(chunk, byFile, loadedByEntry);
  }
  const startNames = new Set(options.start ?? []);
  for (const name of startNames) {
    const chunk = chunks.find((candidate) => candidate.name === name);
    if (chunk === undefined) throw new Error(`route-preloads: no chunk is named ${name}`);
    if (chunk.imports.length > 0) {
      throw new Error(
        `route-preloads: ${chunk.fileName} imports ${chunk.imports.join(', ')}; it cannot start early`,
      );
    }
  }
  const listed: Record<string, RouteFiles> = {};
  for (const [prefix, modules] of Object.entries(routes)) {
    const needed = new Set<T>();
    for (const module of modules) {
      const id = moduleIdOf(module);
      const chunk = chunks.find((candidate) => candidate.facadeModuleId === id);
      if (chunk === undefined) throw new Error(`route-preloads: no chunk is built from ${module}`);
      withStaticImports(chunk, byFile, needed);
    }
    const lazy = [...needed].filter((chunk) => !loadedByEntry.has(chunk));
    const started = lazy.filter((chunk) => startNames.has(chunk.name));
    const preloaded = lazy
      .filter((chunk) => !startNames.has(chunk.name))
      .flatMap((chunk) => [chunk.fileName, ...(chunk.viteMetadata?.importedCss ?? [])]);
    listed[prefix] = {
      preload: [...new Set(preloaded)].map((file) => `${base}${file}`),
      start: started.map((chunk) => `${base}${chunk.fileName}`),
    };
  }
  return listed;
}

/**
 * Lists, per path prefix, the lazy chunks and styles of its pages, which the server announces in
 * index.html so the browser fetches them with the entry chunk, not one level after another
 * (docs/rules.md#budgets). What the entry chunk loads itself is left out.
 */
export function routePreloads(routes: RoutePreloadModules, options: RoutePreloadOptions = {}): Plugin {
  let config: ResolvedConfig;
  return {
    name: 'entry-route-preloads',
    apply: 'build',
    configResolved(resolved) {
      config = resolved;
    },
    generateBundle(_options, bundle: OutputBundle) {
      const chunks = Object.values(bundle).filter((output): output is OutputChunk => output.type === 'chunk');
      let listed: Record<string, RouteFiles>;
      try {
        listed = listRouteFiles(
          chunks,
          routes,
          (module) => path.resolve(config.root, module),
          options,
          config.base,
        );
      } catch (error) {
        this.error(error instanceof Error ? error.message : String(error));
      }
      this.emitFile({ type: 'asset', fileName: routePreloadsFile, source: JSON.stringify(listed) });
    },
  };
}
