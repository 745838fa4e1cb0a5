import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { serverBuildOptions, serverRoot } from '../scripts/build-options.ts';

/** Libraries only traces use (decision record 035). */
const traceLibrary = /^@opentelemetry\/|^@fastify\/otel$/;

describe('the server build', () => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'entry-server-build-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('loads the trace libraries only from a chunk that main.js imports when traces are configured', async () => {
    const { metafile } = await build({ ...serverBuildOptions(outdir), metafile: true, write: false });
    // esbuild names outputs and the chunks they import relative to its working directory.
    const inOutdir = (file: string) => path.relative(outdir, path.resolve(serverRoot, file));
    const outputs = Object.entries(metafile.outputs).map(([file, { imports }]) => ({
      file: inOutdir(file),
      imports: imports.map(({ path: imported, kind, external }) => ({
        path: external === true ? imported : inOutdir(imported),
        kind,
      })),
    }));
    const main = outputs.find(({ file }) => file === 'main.js');
    const loadedAtStart = (main?.imports ?? [])
      .filter(({ kind }) => kind === 'import-statement')
      .map(({ path: imported }) => imported);
    expect(loadedAtStart).toContain('fastify');
    expect(loadedAtStart.filter((imported) => traceLibrary.test(imported))).toEqual([]);
    const withTraceLibraries = outputs.filter(({ imports }) =>
      imports.some(({ path: imported }) => traceLibrary.test(imported)),
    );
    expect(withTraceLibraries.map(({ file }) => file)).toEqual([
      expect.stringMatching(/^tracing-sdk-\w+\.js$/),
    ]);
    expect(main?.imports).toContainEqual({ path: withTraceLibraries[0]?.file, kind: 'dynamic-import' });
  });
});
