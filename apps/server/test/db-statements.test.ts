import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeStatement, maxNamedStatements, statement } from '../src/db/database.ts';
import { type DatabaseHandle, openDatabase } from '../src/db/index.ts';
import {
  executePart,
  fixedText,
  isSerializationFailure,
  rowPerCallBatchedByTurn,
  type StatementPart,
  sqlOf,
  sqlPart,
  unchangedWritesBatchedByTurn,
  withWrites,
  writesIfUnchanged,
} from '../src/db/sql.ts';
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

  it('keeps the values of a part as parameters', async () => {
    const hostile = "'); DROP TABLE sessions; --";
    const echo = (value: string) => sqlPart`SELECT ${value}::text AS v`;
    expect(await executePart<{ v: string }>(handle.db, echo('plain'))).toEqual([{ v: 'plain' }]);
    expect(await executePart<{ v: string }>(handle.db, echo(hostile))).toEqual([{ v: hostile }]);
    const [sessionsTable] = await executePart<{ name: string | null }>(
      handle.db,
      sqlPart`SELECT to_regclass('sessions')::text AS name`,
    );
    expect(sessionsTable?.name).toBe('sessions');
  });

  it('numbers the values of joined parts on, in one text per shape, inside a transaction too', async () => {
    await handle.db.execute(sql`CREATE TABLE joined_probe (n int NOT NULL, note text NOT NULL, doc jsonb)`);
    const hostile = "$1'); DROP TABLE sessions; --";
    const insert = (n: number, note: string): StatementPart =>
      sqlPart`INSERT INTO joined_probe VALUES (${n}::int, ${note}::text, ${JSON.stringify({ note })}::text::jsonb)`;
    const sum = (a: number): StatementPart => sqlPart`SELECT ${a}::int + ${a}::int AS twice`;
    const first = withWrites([insert(1, 'one'), insert(2, hostile)], sum(20));
    const second = withWrites([insert(3, 'three'), insert(4, 'four')], sum(1));
    expect(second.text).toBe(first.text);
    expect(first.text).toContain('$4::int, $5::text, $6::text::jsonb');
    expect(await executePart<{ twice: number }>(handle.db, first)).toEqual([{ twice: 40 }]);
    await handle.db.transaction(async (tx) => {
      await tx.execute(sqlOf(second));
    });
    const rows = await executePart<{ n: number; note: string; doc: { note: string } }>(
      handle.db,
      sqlPart`SELECT n, note, doc FROM joined_probe ORDER BY n`,
    );
    expect(rows).toEqual(
      [
        [1, 'one'],
        [2, hostile],
        [3, 'three'],
        [4, 'four'],
      ].map(([n, note]) => ({ n, note, doc: { note } })),
    );
  });

  it('writes only while the rows are as read, and nothing at all once they changed', async () => {
    await handle.db.execute(sql`CREATE TABLE probe (id int PRIMARY KEY, tries int NOT NULL)`);
    await handle.db.execute(sql`CREATE TABLE probe_log (note text NOT NULL)`);
    await handle.db.execute(sql`INSERT INTO probe VALUES (1, 0)`);
    const countAs = (tries: number, note: string) =>
      writesIfUnchanged([
        {
          expected: sqlPart`SELECT id FROM probe WHERE id = 1 AND tries = ${tries}::int FOR NO KEY UPDATE`,
          changes: [sqlPart`UPDATE probe SET tries = ${tries + 1}::int WHERE id = 1`],
          additions: [sqlPart`INSERT INTO probe_log VALUES (${note}::text)`],
        },
      ]);
    const state = async () => ({
      tries: await executePart<{ tries: number }>(handle.db, sqlPart`SELECT tries FROM probe`),
      log: await executePart<{ note: string }>(handle.db, sqlPart`SELECT note FROM probe_log`),
    });

    await executePart(handle.db, countAs(0, 'first'));
    expect(await state()).toEqual({ tries: [{ tries: 1 }], log: [{ note: 'first' }] });

    // Decided on the state before the first write: refused whole, the insert too.
    const stale = await executePart(handle.db, countAs(0, 'stale')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isSerializationFailure(stale)).toBe(true);
    expect(await state()).toEqual({ tries: [{ tries: 1 }], log: [{ note: 'first' }] });
  });

  it('writes the callers of one turn in one statement, and refuses only the one whose rows changed', async () => {
    await handle.db.execute(sql`CREATE TABLE turn_probe (id int PRIMARY KEY, version int NOT NULL)`);
    await handle.db.execute(sql`CREATE TABLE turn_log (note text NOT NULL)`);
    await handle.db.execute(sql`INSERT INTO turn_probe VALUES (1, 0), (2, 0), (3, 0)`);
    const write = unchangedWritesBatchedByTurn(handle.db);
    const noting = (id: number, version: number, note: string) => ({
      expected: sqlPart`SELECT id FROM turn_probe WHERE id = ${id}::int AND version = ${version}::int`,
      changes: [],
      additions: [sqlPart`INSERT INTO turn_log VALUES (${note}::text)`],
    });
    // The transaction that wrote each note: notes written by one statement share it.
    const notes = async () =>
      executePart<{ note: string; xid: string }>(
        handle.db,
        sqlPart`SELECT note, xmin::text AS xid FROM turn_log ORDER BY note`,
      );

    await Promise.all([write(noting(1, 0, 'a')), write(noting(2, 0, 'b')), write(noting(3, 0, 'c'))]);
    const together = await notes();
    expect(together.map((row) => row.note)).toEqual(['a', 'b', 'c']);
    expect(new Set(together.map((row) => row.xid)).size).toBe(1);

    await handle.db.execute(sql`UPDATE turn_probe SET version = 1 WHERE id = 2`);
    const results = await Promise.allSettled([
      write(noting(1, 0, 'd')),
      write(noting(2, 0, 'stale')),
      write(noting(3, 0, 'e')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const refused = results[1];
    expect(refused?.status === 'rejected' && isSerializationFailure(refused.reason)).toBe(true);
    expect((await notes()).map((row) => row.note)).toEqual(['a', 'b', 'c', 'd', 'e']);

    // A turn with one caller is its statement as `writesIfUnchanged` writes it.
    await write(noting(2, 1, 'f'));
    expect((await notes()).map((row) => row.note)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  it('joins callers whose writes change the rows they locked, each write guarded by its own rows', async () => {
    await handle.db.execute(sql`CREATE TABLE counter_probe (id int PRIMARY KEY, tries int NOT NULL)`);
    await handle.db.execute(sql`INSERT INTO counter_probe VALUES (1, 0), (2, 0)`);
    const write = unchangedWritesBatchedByTurn(handle.db);
    const counting = (id: number, tries: number, rows?: string[]) => ({
      expected: sqlPart`SELECT id FROM counter_probe WHERE id = ${id}::int AND tries = ${tries}::int FOR NO KEY UPDATE`,
      changes: [sqlPart`UPDATE counter_probe SET tries = tries + 1 WHERE id = ${id}::int`],
      additions: [],
      ...(rows === undefined ? {} : { rows }),
    });
    const counters = async () =>
      executePart<{ id: number; tries: number; xid: string }>(
        handle.db,
        sqlPart`SELECT id, tries, xmin::text AS xid FROM counter_probe ORDER BY id`,
      );

    // Two rows in one turn: one statement, each count raised once.
    await Promise.all([write(counting(1, 0, ['counter:1'])), write(counting(2, 0, ['counter:2']))]);
    const joined = await counters();
    expect(joined.map(({ id, tries }) => ({ id, tries }))).toEqual([
      { id: 1, tries: 1 },
      { id: 2, tries: 1 },
    ]);
    expect(new Set(joined.map((row) => row.xid)).size).toBe(1);

    // One of them decided on a stale row: only that caller is refused, the other's count is kept.
    const results = await Promise.allSettled([
      write(counting(1, 0, ['counter:1'])),
      write(counting(2, 1, ['counter:2'])),
    ]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled']);
    expect((await counters()).map((row) => row.tries)).toEqual([1, 2]);

    // Two changes of one row in one statement would both find it as read and keep only one change:
    // callers naming the same row get statements of their own, and so do callers that name no rows.
    // Those statements run at once, on connections of their own where the database has several, so
    // either may lock the row first: the one that waits finds the other's change and is refused.
    const oneOfEach = (results: PromiseSettledResult<void>[]) =>
      results
        .map((result) =>
          result.status === 'fulfilled'
            ? 'written'
            : isSerializationFailure(result.reason)
              ? 'refused'
              : result.reason,
        )
        .sort();
    const sameRow = await Promise.allSettled([
      write(counting(1, 1, ['counter:1'])),
      write(counting(1, 1, ['counter:1'])),
    ]);
    expect(oneOfEach(sameRow)).toEqual(['refused', 'written']);
    const unnamed = await Promise.allSettled([write(counting(2, 2)), write(counting(2, 2))]);
    expect(oneOfEach(unnamed)).toEqual(['refused', 'written']);
    expect((await counters()).map((row) => row.tries)).toEqual([2, 3]);
  });

  it('reads each call its own row when the calls of one turn share a statement', async () => {
    await handle.db.execute(sql`CREATE TABLE row_probe (id int PRIMARY KEY, reads int NOT NULL)`);
    await handle.db.execute(sql`INSERT INTO row_probe VALUES (1, 0), (2, 0), (3, 0)`);
    const read = rowPerCallBatchedByTurn<{ id: number }, { id: number; reads: number; xid: string }>(
      handle.db,
      {
        clausesOf: (call, index) =>
          sqlPart`${fixedText(`counted${index}`)} AS (UPDATE row_probe SET reads = reads + 1 WHERE id = ${call.id}::int RETURNING id, reads, xmin::text AS xid)`,
        rowOf: (index) => `id, reads, xid FROM counted${index}`,
        shapeOf: () => '',
        rowsOf: (call) => [`probe:${call.id}`],
        perStatement: 4,
      },
    );

    // Four calls, one of them for no row: each gets its own answer, from one transaction.
    const answers = await Promise.all([read({ id: 3 }), read({ id: 9 }), read({ id: 1 }), read({ id: 2 })]);
    expect(answers.map((answer) => answer && { id: answer.id, reads: answer.reads })).toEqual([
      { id: 3, reads: 1 },
      undefined,
      { id: 1, reads: 1 },
      { id: 2, reads: 1 },
    ]);
    expect(new Set(answers.flatMap((answer) => (answer === undefined ? [] : [answer.xid]))).size).toBe(1);

    // A call whose value the database refuses fails alone: the others of its turn are answered.
    const mixed = await Promise.allSettled([
      read({ id: 3 }),
      read({ id: 'not a number' as unknown as number }),
      read({ id: 2 }),
    ]);
    expect(mixed.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await read({ id: 3 }))?.reads).toBe(3);

    // Calls that change one row run one after the other, so no change is lost.
    const again = await Promise.all([read({ id: 1 }), read({ id: 1 })]);
    expect(again.map((answer) => answer?.reads).sort()).toEqual([2, 3]);
    expect(new Set(again.map((answer) => answer?.xid)).size).toBe(2);
  });

  it("guards each caller's changes by its own rows, and leaves the texts it joins as written", () => {
    const caller = {
      expected: sqlPart`SELECT id FROM probe WHERE id = ${1}::int FOR NO KEY UPDATE`,
      changes: [sqlPart`UPDATE probe SET note = 'locked $1' WHERE id = ${1}::int`],
      additions: [],
    };
    expect(writesIfUnchanged([caller, caller]).text).toBe(
      'WITH l0 AS (SELECT id FROM probe WHERE id = $1::int FOR NO KEY UPDATE), ' +
        "w0_0 AS (UPDATE probe SET note = 'locked $1' WHERE id = $2::int AND EXISTS (SELECT 1 FROM l0)), " +
        'l1 AS (SELECT id FROM probe WHERE id = $3::int FOR NO KEY UPDATE), ' +
        "w1_0 AS (UPDATE probe SET note = 'locked $1' WHERE id = $4::int AND EXISTS (SELECT 1 FROM l1)) " +
        'SELECT expect_unchanged((SELECT count(*) FROM l0)) AS found0, expect_unchanged((SELECT count(*) FROM l1)) AS found1',
    );
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
