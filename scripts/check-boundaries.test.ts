import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findBoundaryViolations } from './check-boundaries.ts';
import { writeFixtureTree } from './fixture-tree.ts';

const fixture: Record<string, string> = {
  'package.json': JSON.stringify({ workspaces: ['apps/*', 'e2e', 'packages/domain', 'packages/client'] }),
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
    "import type { StatementPart } from '../db/sql.ts';",
    '',
  ].join('\n'),
  'apps/server/src/routes/types.ts': [
    "import type { Row } from '../db/schema.ts';",
    "import { db } from '../db/index.ts';",
    "import type { Rule } from '../services/rule.ts';",
    'export const use = (row: Row, rule: Rule) => [db, row, rule];',
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
  'apps/web/src/components/banner.tsx': "import { own } from '../features/a/own.ts';\nexport { own };\n",
  'apps/web/src/lib/texts/uses-feature.ts':
    "import { thing } from '@/features/b/thing.ts';\nexport { thing };\n",
  'packages/client/package.json': JSON.stringify({ name: '@fixture/client', exports: './src/index.ts' }),
  'packages/client/src/index.ts': "export { call } from './http.ts';\nexport * from './own-user.ts';\n",
  'packages/client/src/http.ts': "import { path } from './sessions.ts';\nexport const call = path;\n",
  'packages/client/src/sessions.ts':
    "import type { call } from './http.ts';\nexport const path: typeof call = 1;\n",
  'packages/domain/src/ring-a.ts': "import { b } from './ring-b.ts';\nexport const a = b;\n",
  'packages/domain/src/ring-b.ts': "export const b = () => import('@fixture/client');\n",
  'packages/client/src/domain-user.ts': "import '../../domain/src/ring-a.ts';\n",
  'packages/client/src/own-user.ts': "import './domain-user.ts';\n",
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

  it('reports a service or route using a statement, a table, a transaction or the read cache, or even the type of a statement part, and nothing for other types or stores', async () => {
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
      {
        file: query,
        line: 10,
        specifier: '../db/sql.ts',
        rule: 'statements',
        into: 'apps/server/src/db/sql.ts',
      },
    ]);
  });

  it('reports a route importing anything of db/, even a type, once, and not its services types', async () => {
    const violations = await findBoundaryViolations(root);
    const route = 'apps/server/src/routes/types.ts';
    expect(violations.filter((violation) => violation.file === route)).toEqual([
      { file: route, line: 1, specifier: '../db/schema.ts', rule: 'routes', into: 'apps/server/src/db' },
      { file: route, line: 2, specifier: '../db/index.ts', rule: 'routes', into: 'apps/server/src/db' },
    ]);
  });

  it('reports lib/ or components/ importing a feature', async () => {
    const violations = await findBoundaryViolations(root);
    expect(violations.filter((violation) => violation.rule === 'shared')).toEqual([
      {
        file: 'apps/web/src/components/banner.tsx',
        line: 1,
        specifier: '../features/a/own.ts',
        rule: 'shared',
        into: 'apps/web/src/features/a',
      },
      {
        file: 'apps/web/src/lib/texts/uses-feature.ts',
        line: 1,
        specifier: '@/features/b/thing.ts',
        rule: 'shared',
        into: featureB,
      },
    ]);
  });

  it('reports each circle of imports once, through types, dynamic imports and package exports', async () => {
    const violations = await findBoundaryViolations(root);
    expect(violations.filter((violation) => violation.rule === 'circle')).toEqual([
      {
        file: 'apps/server/src/db/index.ts',
        line: 1,
        specifier: '../stores/rows.ts',
        rule: 'circle',
        into: 'apps/server/src/db/index.ts -> apps/server/src/stores/rows.ts -> apps/server/src/db/index.ts',
      },
      {
        file: 'packages/client/src/domain-user.ts',
        line: 1,
        specifier: '../../domain/src/ring-a.ts',
        rule: 'circle',
        into: 'packages/client/src/domain-user.ts -> packages/domain/src/ring-a.ts -> packages/domain/src/ring-b.ts -> packages/client/src/index.ts -> packages/client/src/own-user.ts -> packages/client/src/domain-user.ts',
      },
      {
        file: 'packages/client/src/http.ts',
        line: 1,
        specifier: './sessions.ts',
        rule: 'circle',
        into: 'packages/client/src/http.ts -> packages/client/src/sessions.ts -> packages/client/src/http.ts',
      },
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

describe('knip, the last step of npm run lint', () => {
  const repositoryRoot = path.resolve(import.meta.dirname, '..');
  const knip = path.join(repositoryRoot, 'node_modules/.bin/knip');

  /** Runs knip on a small workspace whose `lib.ts` exports `exports`, of which `index.ts` imports `used`. */
  async function knipOn(exports: string): Promise<{ failed: boolean; output: string }> {
    const directory = writeFixtureTree('knip-probe-', {
      'package.json': JSON.stringify({ name: 'probe', private: true, type: 'module', main: 'index.ts' }),
      'index.ts': "import { used } from './lib.ts';\nconsole.info(used);\n",
      'lib.ts': exports,
    });
    try {
      const run = promisify(execFile);
      const { stdout } = await run(knip, ['--directory', directory, '--no-progress', '--no-config-hints']);
      return { failed: false, output: stdout };
    } catch (error) {
      const { stdout = '' } = error as { stdout?: string };
      return { failed: true, output: stdout };
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  it('is run by npm run lint', () => {
    const manifest = JSON.parse(readFileSync(path.join(repositoryRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.lint).toMatch(/(^|&& )knip\b/);
  });

  it('fails on an export nothing imports, and passes once it is gone', async () => {
    const unused = await knipOn('export const used = 1;\nexport const unused = 2;\n');
    expect(unused.failed).toBe(true);
    expect(unused.output).toMatch(/Unused exports \(1\)\s+unused\b/);
    expect(await knipOn('export const used = 1;\n')).toEqual({ failed: false, output: '' });
  }, 60_000);
});
