import { PGlite, types } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreparedStatements } from '../src/db/pglite-prepared.ts';

describe('prepared statements on PGlite', () => {
  let client: PGlite;
  let prepared: PreparedStatements;

  beforeAll(async () => {
    client = await PGlite.create();
    await client.exec(`CREATE TABLE items (
      id integer PRIMARY KEY, name text, at timestamptz, detail jsonb, tags text[]
    )`);
    prepared = new PreparedStatements(client);
  });
  afterAll(() => client.close());

  const preparedNames = async () =>
    (await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).rows.map(
      (row) => row.name,
    );

  it('answers every run as query does, with the text prepared from its second run', async () => {
    const insert = 'INSERT INTO items (id, name, at, detail, tags) VALUES ($1, $2, $3, $4, $5) RETURNING *';
    const at = new Date('2026-11-24T10:00:00Z');
    const answers = [];
    for (const id of [1, 2, 3]) {
      answers.push(await prepared.query(insert, [id, `item ${id}`, at, { id }, ['a', 'b']]));
    }
    expect(answers.map((answer) => answer.rows)).toEqual(
      [1, 2, 3].map((id) => [{ id, name: `item ${id}`, at, detail: { id }, tags: ['a', 'b'] }]),
    );
    expect(answers.map((answer) => answer.affectedRows)).toEqual([1, 1, 1]);
    expect(await preparedNames()).toEqual(['entry_prepared_1']);

    const select = 'SELECT id, name, at, detail FROM items WHERE id = $1 OR name = $2 ORDER BY id';
    const viaQuery = await client.query(select, [2, null]);
    for (let run = 0; run < 3; run += 1) {
      const answer = await prepared.query(select, [2, null]);
      expect(answer.rows).toEqual(viaQuery.rows);
      expect(answer.fields).toEqual(viaQuery.fields);
    }
  });

  it('keeps the row mode and the parsers of the call', async () => {
    const text = 'SELECT id, at FROM items WHERE id = $1';
    const keepText = (value: string) => value;
    const options = { rowMode: 'array' as const, parsers: { [types.TIMESTAMPTZ]: keepText } };
    for (let run = 0; run < 3; run += 1) {
      const answer = await prepared.query(text, [1], options);
      expect(answer.rows).toEqual([[1, '2026-11-24 10:00:00+00']]);
    }
  });

  it('parses each run with the parsers it is given, not those of an earlier run', async () => {
    const text = 'SELECT at FROM items WHERE id = $1';
    const asText = { parsers: { [types.TIMESTAMPTZ]: (value: string) => value } };
    const asYear = { parsers: { [types.TIMESTAMPTZ]: (value: string) => value.slice(0, 4) } };
    const runs = [asText, asYear, {}, asText, asYear, {}];
    const answers = [];
    for (const options of runs) answers.push((await prepared.query(text, [1], options)).rows);
    const parsed = [
      [{ at: '2026-11-24 10:00:00+00' }],
      [{ at: '2026' }],
      [{ at: new Date('2026-11-24T10:00:00Z') }],
    ];
    expect(answers).toEqual([...parsed, ...parsed]);
  });

  it("fails as query does, with PostgreSQL's code, and the next statements run", async () => {
    const insert = 'INSERT INTO items (id, name) VALUES ($1, $2)';
    await prepared.query(insert, [10, 'ten']);
    await prepared.query(insert, [11, 'eleven']);
    await expect(prepared.query(insert, [10, 'again'])).rejects.toMatchObject({
      code: '23505',
      message: expect.stringContaining('items_pkey'),
    });
    await expect(prepared.query(insert, [12, 'twelve'])).resolves.toMatchObject({ affectedRows: 1 });
    await expect(prepared.query('SELECT nothing FROM items', [])).rejects.toMatchObject({ code: '42703' });
    await expect(prepared.query('SELECT nothing FROM items', [])).rejects.toMatchObject({ code: '42703' });
    expect((await prepared.query('SELECT count(*)::int AS n FROM items', [])).rows).toEqual([{ n: 6 }]);
  });

  it('waits for an open transaction, and does not run inside it', async () => {
    const count = 'SELECT count(*)::int AS n FROM items WHERE name = $1';
    await prepared.query(count, ['in a transaction']);
    let outside: Promise<{ rows: unknown[] }> | undefined;
    await client.transaction(async (tx) => {
      await tx.query("INSERT INTO items (id, name) VALUES (100, 'in a transaction')");
      outside = prepared.query(count, ['in a transaction']);
      // Turns of the event loop while the row is there: a statement let in would count it.
      for (let turn = 0; turn < 5; turn += 1) await tx.query('SELECT 1');
      await tx.rollback();
    });
    expect((await outside)?.rows).toEqual([{ n: 0 }]);
  });
});
