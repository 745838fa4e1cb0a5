import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBoundaryViolations } from './check-boundaries.ts';
import { writeFixtureTree } from './fixture-tree.ts';

const fixture: Record<string, string> = {
  'package.json': JSON.stringify({ workspaces: ['apps/*', 'e2e', 'packages/domain'] }),
  'apps/server/package.json': JSON.stringify({
    name: '@fixture/server',
    exports: { './testing': './test/entry.ts' },
  }),
  'apps/server/src/app.ts': 'export const app = 1;\n',
  'apps/server/test/entry.ts': "export { app } from '../src/app.ts';\n",
  'apps/server/src/routes/sign-in.ts': "import { rule } from '../services/rule.ts';\nexport { rule };\n",
  'apps/server/src/services/rule.ts': [
    "import { rows } from '../stores/rows.ts';",
    "import { app } from '../app.ts';",
    'export const rule = rows + app;',
    '',
  ].join('\n'),
  'apps/server/src/stores/rows.ts': [
    "import { db } from '../db/index.ts';",
    "import { rule } from '../services/rule.ts';",
    "import { signIn } from '../routes/sign-in.ts';",
    'export const rows = db + rule + signIn;',
    '',
  ].join('\n'),
  'apps/server/src/db/index.ts': "import { rows } from '../stores/rows.ts';\nexport const db = rows;\n",
  'apps/server/src/services/query.ts': [
    "import type { SQL } from 'drizzle-orm';",
    "import { eq } from 'drizzle-orm';",
    "import { type Database, statement } from '../db/index.ts';",
    "import { type Row } from '../db/schema.ts';",
    "import type { ReadCache } from '../stores/read-cache.ts';",
    "export { sql } from 'drizzle-orm';",
    "export type { Database as Db } from '../db/index.ts';",
    "import { rows } from '../stores/rows.ts';",
    'export const run = (db: Database) => db.transaction(async () => rows);',
    '',
  ].join('\n'),
  'apps/web/package.json': JSON.stringify({ name: '@fixture/web' }),
  'apps/web/tsconfig.json': JSON.stringify({
    compilerOptions: {
      moduleResolution: 'bundler',
      allowImportingTsExtensions: true,
      noEmit: true,
      paths: { '@/*': ['./src/*'] },
    },
  }),
  'apps/web/src/lib/shared.ts': [
    "import { app } from '../../../server/src/app.ts';",
    'export { app };',
    '',
  ].join('\n'),
  'apps/web/src/app/router.tsx': "import { Page } from '../features/a/page.tsx';\nexport { Page };\n",
  'apps/web/src/features/a/page.tsx': [
    "import { own } from './own.ts';",
    "import { app } from '../../lib/shared.ts';",
    "import { thing } from '../b/thing.ts';",
    "import { aliased } from '@/features/b/thing.ts';",
    "import { shared } from '@/lib/shared.ts';",
    "export const Page = () => import('../b/lazy.ts');",
    "import '../b/styles.css';",
    'export { own, app, thing, aliased, shared };',
    '',
  ].join('\n'),
  'apps/web/src/features/a/own.ts': 'export const own = 1;\n',
  'apps/web/src/features/a/nested/deep.ts': [
    "export { own } from '../own.ts';",
    "export { thing } from '../../b/thing.ts';",
    '',
  ].join('\n'),
  'apps/web/src/features/b/thing.ts': 'export const thing = 1;\nexport const aliased = 1;\n',
  'apps/web/src/features/b/lazy.ts': 'export const lazy = 1;\n',
  'e2e/package.json': JSON.stringify({ name: '@fixture/e2e' }),
  'e2e/start.ts': [
    "import { app } from '@fixture/server/testing';",
    "import { test } from '@playwright/test';",
    "import { app as direct } from '../apps/server/src/app.ts';",
    "import { app as deep } from '@fixture/server/src/app.ts';",
    'export { app, test, direct, deep };',
    '',
  ].join('\n'),
  'packages/domain/package.json': JSON.stringify({ name: '@fixture/domain' }),
  'packages/domain/index.ts': "export * from '../../apps/web/src/lib/shared.ts';\n",
  'apps/web/node_modules/ignored/index.ts': "import '../../../server/src/app.ts';\n",
};

const featureB = 'apps/web/src/features/b';

let root = '';

beforeAll(() => {
  root = writeFixtureTree('boundaries-', fixture);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findBoundaryViolations', () => {
  it('reports a feature importing another feature, by relative path, alias, re-export or dynamic import', async () => {
    const violations = await findBoundaryViolations(root);
    expect(violations.filter((violation) => violation.rule === 'feature')).toEqual([
      {
        file: 'apps/web/src/features/a/nested/deep.ts',
        line: 2,
        specifier: '../../b/thing.ts',
        rule: 'feature',
        into: featureB,
      },
      {
        file: 'apps/web/src/features/a/page.tsx',
        line: 3,
        specifier: '../b/thing.ts',
        rule: 'feature',
        into: featureB,
      },
      {
        file: 'apps/web/src/features/a/page.tsx',
        line: 4,
        specifier: '@/features/b/thing.ts',
        rule: 'feature',
        into: featureB,
      },
      {
        file: 'apps/web/src/features/a/page.tsx',
        line: 6,
        specifier: '../b/lazy.ts',
        rule: 'feature',
        into: featureB,
      },
      {
        file: 'apps/web/src/features/a/page.tsx',
        line: 7,
        specifier: '../b/styles.css',
        rule: 'feature',
        into: featureB,
      },
    ]);
  });

  it('reports an import into apps/X from outside it, but not of a package export apps/X declares', async () => {
    const violations = await findBoundaryViolations(root);
    expect(violations.filter((violation) => violation.rule === 'app')).toEqual([
      {
        file: 'apps/web/src/lib/shared.ts',
        line: 1,
        specifier: '../../../server/src/app.ts',
        rule: 'app',
        into: 'apps/server',
      },
      {
        file: 'e2e/start.ts',
        line: 3,
        specifier: '../apps/server/src/app.ts',
        rule: 'app',
        into: 'apps/server',
      },
      {
        file: 'e2e/start.ts',
        line: 4,
        specifier: '@fixture/server/src/app.ts',
        rule: 'app',
        into: 'apps/server',
      },
      {
        file: 'packages/domain/index.ts',
        line: 1,
        specifier: '../../apps/web/src/lib/shared.ts',
        rule: 'app',
        into: 'apps/web',
      },
    ]);
  });

  it('reports a server layer importing a layer above it, and nothing for imports downwards', async () => {
    const violations = await findBoundaryViolations(root);
    expect(violations.filter((violation) => violation.rule === 'layer')).toEqual([
      {
        file: 'apps/server/src/db/index.ts',
        line: 1,
        specifier: '../stores/rows.ts',
        rule: 'layer',
        into: 'apps/server/src/stores',
      },
      {
        file: 'apps/server/src/stores/rows.ts',
        line: 2,
        specifier: '../services/rule.ts',
        rule: 'layer',
        into: 'apps/server/src/services',
      },
      {
        file: 'apps/server/src/stores/rows.ts',
        line: 3,
        specifier: '../routes/sign-in.ts',
        rule: 'layer',
        into: 'apps/server/src/routes',
      },
    ]);
  });

  it('reports a service or route using a statement, a table, a transaction or the read cache, and nothing for types or stores', async () => {
    const violations = await findBoundaryViolations(root);
    const query = 'apps/server/src/services/query.ts';
    expect(violations.filter((violation) => violation.rule === 'statements')).toEqual([
      { file: query, line: 2, specifier: 'drizzle-orm', rule: 'statements', into: 'drizzle-orm' },
      { file: query, line: 3, specifier: '../db/index.ts', rule: 'statements', into: 'apps/server/src/db' },
      {
        file: query,
        line: 5,
        specifier: '../stores/read-cache.ts',
        rule: 'statements',
        into: 'apps/server/src/stores/read-cache.ts',
      },
      { file: query, line: 6, specifier: 'drizzle-orm', rule: 'statements', into: 'drizzle-orm' },
      { file: query, line: 9, specifier: 'db.transaction(...)', rule: 'statements', into: 'a transaction' },
    ]);
  });

  it('reports nothing for a tree that keeps its boundaries', async () => {
    const clean = mkdtempSync(path.join(tmpdir(), 'boundaries-clean-'));
    try {
      writeFileSync(path.join(clean, 'package.json'), JSON.stringify({ workspaces: ['apps/web'] }));
      mkdirSync(path.join(clean, 'apps/web/src/features/a'), { recursive: true });
      writeFileSync(path.join(clean, 'apps/web/src/features/a/page.ts'), "import '../../lib/x.ts';\n");
      expect(await findBoundaryViolations(clean)).toEqual([]);
    } finally {
      rmSync(clean, { recursive: true, force: true });
    }
  });
});
