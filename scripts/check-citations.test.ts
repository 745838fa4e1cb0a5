import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findMissingCitations } from './check-citations.ts';
import { writeFixtureTree } from './fixture-tree.ts';

/** Spelled in parts so this file does not cite them itself. */
const designNotes = ['DESIGN', 'md'].join('.');
const productSpec = ['product-spec', 'md'].join('.');
const sharedFolder = ['..', 'shared', ''].join('/');
const docsFolder = 'docs';
const missingAnchor = `${docsFolder}/rules.md#no-such-rule`;
const missingPage = `${docsFolder}/gone.md`;

const fixture: Record<string, string> = {
  'docs/rules.md': '# Rules\n\n## Budgets\n\n## Session endings\n',
  'apps/server/src/kept.ts': [
    '/** Paid before judged (docs/rules.md#budgets; docs/rules.md#session-endings). */',
    '// The why, said here.',
    'export const kept = 1;',
    '',
  ].join('\n'),
  'apps/web/src/outside.tsx': [
    `/** The budget (${designNotes} section 8). */`,
    `// Spec: ${sharedFolder}spec/${productSpec}`,
    'export const outside = 1;',
    '',
  ].join('\n'),
  'packages/domain/src/gone.ts': [
    `/** See ${missingAnchor} and ${missingPage}. */`,
    'export const gone = 1;',
    '',
  ].join('\n'),
  'README.md': `Rules: docs/rules.md#budgets. Not ${designNotes}.\n`,
  'apps/web/node_modules/ignored/index.ts': `// ${designNotes}\n`,
};

let root = '';

beforeAll(() => {
  root = writeFixtureTree('citations-', fixture);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findMissingCitations', () => {
  it('reports citations of files a clone of the repository lacks, wherever they are cited', async () => {
    const missing = await findMissingCitations(root);
    expect(missing.filter(({ file }) => file !== 'packages/domain/src/gone.ts')).toEqual([
      { file: 'README.md', line: 1, cited: designNotes },
      { file: 'apps/web/src/outside.tsx', line: 1, cited: designNotes },
      { file: 'apps/web/src/outside.tsx', line: 2, cited: sharedFolder },
      { file: 'apps/web/src/outside.tsx', line: 2, cited: productSpec },
    ]);
  });

  it('reports a docs/ page that does not exist and an anchor with no heading', async () => {
    const missing = await findMissingCitations(root);
    expect(missing.filter(({ file }) => file === 'packages/domain/src/gone.ts')).toEqual([
      { file: 'packages/domain/src/gone.ts', line: 1, cited: missingAnchor },
      { file: 'packages/domain/src/gone.ts', line: 1, cited: missingPage },
    ]);
  });

  it('reports nothing for citations of docs/ pages and headings that exist', async () => {
    const missing = await findMissingCitations(root);
    expect(missing.some(({ file }) => file === 'apps/server/src/kept.ts')).toBe(false);
  });
});
