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
import { isSerializationFailure, writesIfUnchanged } from '../src/db/sql.ts';
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

  it('writes only while the rows are as read, and nothing at all once they changed', async () => {
    await handle.db.execute(sql`CREATE TABLE probe (id int PRIMARY KEY, tries int NOT NULL)`);
    await handle.db.execute(sql`CREATE TABLE probe_log (note text NOT NULL)`);
    await handle.db.execute(sql`INSERT INTO probe VALUES (1, 0)`);
    const countAs = (tries: number, note: string) =>
      writesIfUnchanged(sql`SELECT id FROM probe WHERE id = 1 AND tries = ${tries} FOR NO KEY UPDATE`, [
        sql`UPDATE probe SET tries = ${tries + 1} WHERE id = 1 AND EXISTS (SELECT 1 FROM locked)`,
        sql`INSERT INTO probe_log VALUES (${note})`,
      ]);
    const state = async () => ({
      tries: await executeNamed<{ tries: number }>(handle.db, sql`SELECT tries FROM probe`),
      log: await executeNamed<{ note: string }>(handle.db, sql`SELECT note FROM probe_log`),
    });

    await executeNamed(handle.db, countAs(0, 'first'));
    expect(await state()).toEqual({ tries: [{ tries: 1 }], log: [{ note: 'first' }] });

    // Decided on the state before the first write: refused whole, the insert too.
    const stale = await executeNamed(handle.db, countAs(0, 'stale')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSerializationFailure(stale)).toBe(true);
    expect(await state()).toEqual({ tries: [{ tries: 1 }], log: [{ note: 'first' }] });
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
