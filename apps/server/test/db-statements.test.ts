import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DatabaseHandle,
  executeNamed,
  executeStatement,
  maxNamedStatements,
  openDatabase,
  statement,
} from '../src/db/index.ts';
import { createTestDatabase, databaseLabel, type TestDatabase } from './helpers/server.ts';

describe(`named statements (${databaseLabel})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  });

  afterAll(async () => {
    await handle.close();
    await database.drop();
  });

  it('names a text after itself, so one shape has one name and two shapes two', () => {
    const one = statement('SELECT $1::int AS n');
    expect(one.name).toMatch(/^entry_[0-9a-f]{24}$/);
    expect(statement('SELECT $1::int AS n')).toEqual(one);
    expect(statement('SELECT $1::int + 0 AS n').name).not.toBe(one.name);
  });

  it('answers each call with its own values, prepared once per connection', async () => {
    const add = statement('SELECT $1::int + $2::int AS n');
    // Calls one after another reuse the pool's one idle connection.
    for (const [a, b] of [
      [1, 2],
      [40, 2],
      [-5, 5],
    ] as const) {
      expect(await executeStatement<{ n: number }>(handle.db, add, [a, b])).toEqual([{ n: a + b }]);
    }
    if (handle.kind !== 'postgres') return;
    const prepared = await executeStatement<{ statement: string }>(
      handle.db,
      statement('SELECT statement FROM pg_prepared_statements WHERE name = $1'),
      [add.name],
    );
    expect(prepared).toEqual([{ statement: add.text }]);
  });

  it('keeps values of a drizzle statement as parameters', async () => {
    const hostile = "'); DROP TABLE sessions; --";
    const echo = (value: string) => sql`SELECT ${value}::text AS v`;
    expect(await executeNamed<{ v: string }>(handle.db, echo('plain'))).toEqual([{ v: 'plain' }]);
    expect(await executeNamed<{ v: string }>(handle.db, echo(hostile))).toEqual([{ v: hostile }]);
    const [sessionsTable] = await executeNamed<{ name: string | null }>(
      handle.db,
      sql`SELECT to_regclass('sessions')::text AS name`,
    );
    expect(sessionsTable?.name).toBe('sessions');
  });

  it('runs texts past the bound unnamed, so a connection holds a bounded number of statements', async () => {
    const texts = Array.from({ length: maxNamedStatements + 1 }, (_, index) => `SELECT ${index} AS n`);
    const statements = texts.map((text) => statement(text));
    expect(statements.at(-1)?.name).toBeUndefined();
    const last = statements.at(-1);
    if (last === undefined) throw new Error('no statement');
    expect(await executeStatement<{ n: number }>(handle.db, last, [])).toEqual([{ n: maxNamedStatements }]);
  });
});
