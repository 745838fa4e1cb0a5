import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  assertBuildMatchesSources,
  buildRecordFile,
  StaleBuildError,
  sourcesDigest,
} from '../src/build-check.ts';
import { startFailureMessage } from '../src/cli/errors.ts';

describe('a build of the server refuses to run other sources than its own', () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  /** A repository as the build sees it: the server's and the domain package's sources, and a dist. */
  function repository(): { root: string; write(file: string, text: string): void; dist: string } {
    const root = mkdtempSync(path.join(tmpdir(), 'entry-build-'));
    roots.push(root);
    const write = (file: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      writeFileSync(path.join(root, file), text);
    };
    write('apps/server/src/main.ts', 'export const a = 1;\n');
    write('apps/server/src/db/migrations/0001_init.sql', 'CREATE TABLE t (id int);\n');
    write('packages/domain/src/index.ts', 'export const b = 2;\n');
    const dist = path.join(root, 'apps/server/dist');
    mkdirSync(dist, { recursive: true });
    return { root, write, dist };
  }

  const recordBuild = (root: string, dist: string) =>
    writeFileSync(path.join(dist, buildRecordFile), JSON.stringify({ sources: sourcesDigest(root) }));

  it('runs a build made of the sources beside it', () => {
    const { root, dist } = repository();
    recordBuild(root, dist);
    expect(() => assertBuildMatchesSources(dist)).not.toThrow();
  });

  it.each([
    ['a changed server module', 'apps/server/src/main.ts', 'export const a = 2;\n'],
    ['a new migration', 'apps/server/src/db/migrations/0002_more.sql', 'SELECT 1;\n'],
    ['a changed domain module', 'packages/domain/src/index.ts', 'export const b = 3;\n'],
  ])('refuses a build older than %s, with a message that says what to run', (_change, file, text) => {
    const { root, write, dist } = repository();
    recordBuild(root, dist);
    write(file, text);
    expect(() => assertBuildMatchesSources(dist)).toThrow(StaleBuildError);
    let message: string | undefined;
    try {
      assertBuildMatchesSources(dist);
    } catch (error) {
      message = startFailureMessage(error);
    }
    expect(message).toMatch(/apps\/server\/dist is out of date\): run npm run build/);
  });

  it('tells a renamed file from the same contents under the old name', () => {
    const { root, dist } = repository();
    recordBuild(root, dist);
    renameSync(path.join(root, 'apps/server/src/main.ts'), path.join(root, 'apps/server/src/start.ts'));
    expect(() => assertBuildMatchesSources(dist)).toThrow(StaleBuildError);
  });

  it('leaves tests out: they are not in the build', () => {
    const { root, write, dist } = repository();
    recordBuild(root, dist);
    write('packages/domain/src/index.test.ts', 'it("runs", () => {});\n');
    expect(() => assertBuildMatchesSources(dist)).not.toThrow();
  });

  it('does not check a build deployed without its sources', () => {
    const { root, dist } = repository();
    recordBuild(root, dist);
    rmSync(path.join(root, 'apps/server/src'), { recursive: true });
    expect(() => assertBuildMatchesSources(dist)).not.toThrow();
  });
});
