import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLongFiles, maximumLines } from './check-file-lengths.ts';
import { writeFixtureTree } from './fixture-tree.ts';

function linesOf(count: number): string {
  return 'export const line = 1;\n'.repeat(count);
}

const tooLong = linesOf(maximumLines + 1);

const fixture: Record<string, string> = {
  'apps/server/src/long.ts': tooLong,
  'apps/server/src/at-limit.ts': linesOf(maximumLines),
  'apps/web/src/features/a/page.tsx': tooLong,
  'packages/domain/src/long.ts': tooLong,
  'scripts/long.ts': tooLong,
  'bench/lib/long.ts': tooLong,
  'e2e/fixtures/long.ts': tooLong,
  'apps/server/test/long.test.ts': tooLong,
  'apps/web/src/page.test.tsx': tooLong,
  'e2e/specs/long.spec.ts': tooLong,
  'apps/web/node_modules/ignored/index.ts': tooLong,
  'apps/web/dist/assets/index.ts': tooLong,
  'apps/server/src/long.js': tooLong,
  'docs/long.ts': tooLong,
};

let root = '';

beforeAll(() => {
  root = writeFixtureTree('file-lengths-', fixture);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findLongFiles', () => {
  it(`reports each source file of apps/, packages/, scripts/, bench/ and e2e/ over ${maximumLines} lines, and none at ${maximumLines}`, async () => {
    const long = maximumLines + 1;
    expect(await findLongFiles(root)).toEqual([
      { file: 'apps/server/src/long.ts', lines: long },
      { file: 'apps/web/src/features/a/page.tsx', lines: long },
      { file: 'bench/lib/long.ts', lines: long },
      { file: 'e2e/fixtures/long.ts', lines: long },
      { file: 'packages/domain/src/long.ts', lines: long },
      { file: 'scripts/long.ts', lines: long },
    ]);
  });

  it('counts a last line without a final newline', async () => {
    const directory = writeFixtureTree('file-lengths-open-', {
      'apps/x.ts': linesOf(maximumLines).concat('export const last = 1;'),
    });
    try {
      expect(await findLongFiles(directory)).toEqual([{ file: 'apps/x.ts', lines: maximumLines + 1 }]);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

it('is run by npm run lint', () => {
  const manifest = JSON.parse(readFileSync(path.join(import.meta.dirname, '../package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  expect(manifest.scripts.lint).toMatch(/(^|&& )tsx scripts\/check-file-lengths\.ts( &&|$)/);
});
