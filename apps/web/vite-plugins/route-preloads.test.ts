import { describe, expect, it } from 'vitest';
import { type ChunkFacts, listRouteFiles } from './route-preloads.ts';

function chunk(fileName: string, facts: Partial<ChunkFacts> = {}): ChunkFacts {
  return {
    fileName,
    name: fileName.replace(/^assets\//, '').replace(/-\w+\.js$/, ''),
    isEntry: false,
    imports: [],
    facadeModuleId: null,
    ...facts,
  };
}

// The entry chunk and what it imports; a layout and a page loaded lazily; zod, which imports nothing.
const chunks = [
  chunk('assets/index-e1.js', { isEntry: true, imports: ['assets/host-h1.js'] }),
  chunk('assets/host-h1.js'),
  chunk('assets/zod-z1.js'),
  chunk('assets/src-s1.js', { imports: ['assets/index-e1.js', 'assets/zod-z1.js'] }),
  chunk('assets/layout-l1.js', {
    facadeModuleId: '/app/src/layout.tsx',
    imports: ['assets/index-e1.js', 'assets/src-s1.js'],
    viteMetadata: { importedCss: new Set(['assets/portal-p1.css']) },
  }),
  chunk('assets/page-g1.js', {
    facadeModuleId: '/app/src/page.tsx',
    imports: ['assets/index-e1.js', 'assets/host-h1.js', 'assets/src-s1.js'],
  }),
];
const routes = { '/c/': ['src/layout.tsx'], '/c/page': ['src/layout.tsx', 'src/page.tsx'] };
const moduleIdOf = (module: string) => `/app/${module}`;

describe('listRouteFiles', () => {
  it("lists each route's lazy chunks, what they import and their styles, not what the entry loads", () => {
    expect(listRouteFiles(chunks, routes, moduleIdOf)).toEqual({
      '/c/': {
        preload: ['/assets/layout-l1.js', '/assets/portal-p1.css', '/assets/src-s1.js', '/assets/zod-z1.js'],
        start: [],
      },
      '/c/page': {
        preload: [
          '/assets/layout-l1.js',
          '/assets/portal-p1.css',
          '/assets/src-s1.js',
          '/assets/zod-z1.js',
          '/assets/page-g1.js',
        ],
        start: [],
      },
    });
  });

  it('starts the named chunks instead of preloading them', () => {
    const listed = listRouteFiles(chunks, routes, moduleIdOf, { start: ['zod'] });
    expect(listed['/c/page']?.start).toEqual(['/assets/zod-z1.js']);
    expect(listed['/c/page']?.preload).not.toContain('/assets/zod-z1.js');
  });

  it('refuses to start a chunk that imports another: it would wait for it all the same', () => {
    expect(() => listRouteFiles(chunks, routes, moduleIdOf, { start: ['src'] })).toThrow(
      /src-s1\.js imports assets\/index-e1\.js/,
    );
  });

  it('names a chunk to start that the build does not have', () => {
    expect(() => listRouteFiles(chunks, routes, moduleIdOf, { start: ['valibot'] })).toThrow(
      'no chunk is named valibot',
    );
  });

  it('names a route module no chunk is built from', () => {
    expect(() => listRouteFiles(chunks, { '/x/': ['src/missing.tsx'] }, moduleIdOf)).toThrow(
      'no chunk is built from src/missing.tsx',
    );
  });
});
