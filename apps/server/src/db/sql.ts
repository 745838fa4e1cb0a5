import { type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Database } from './index.ts';

/**
 * The rows a raw statement returns. Both drivers answer with `{ rows }` (node-postgres'
 * QueryResult, PGlite's Results), which drizzle's driver-neutral type leaves unknown.
 */
export async function executeRows<Row>(db: Database, query: SQLWrapper): Promise<Row[]> {
  const result: unknown = await db.execute(query);
  if (typeof result !== 'object' || result === null || !('rows' in result) || !Array.isArray(result.rows)) {
    throw new Error('The database driver returned no rows array');
  }
  return result.rows as Row[];
}

/**
 * `main` with `writes` run in the same statement as data-modifying `WITH` clauses (`w0`, `w1`,
 * ...): everything commits together, in one round trip. All parts see one snapshot, so `main`
 * does not see the rows the writes add.
 */
export function withWrites(writes: readonly SQLWrapper[], main: SQLWrapper): SQL {
  if (writes.length === 0) return main.getSQL();
  return sql`WITH ${writeClauses(writes)} ${main.getSQL()}`;
}

/** `writes` as the clauses `w0 AS (...), w1 AS (...)` of a `WITH`. */
function writeClauses(writes: readonly SQLWrapper[]): SQL {
  return sql.join(
    writes.map((write, index) => sql`${sql.raw(`w${index}`)} AS (${write.getSQL()})`),
    sql`, `,
  );
}

/**
 * `writes` (as in `withWrites`) that were decided on rows read earlier without a lock, to run only
 * if those rows are still as read: `expected` selects them again, locking them, by the values the
 * decision rests on. Writes that touch those rows must refer to `locked` (`EXISTS (SELECT 1 FROM
 * locked)`), so the rows are locked and checked before they change. When `expected` finds no row,
 * the statement fails as a serialization failure (see `isSerializationFailure`) and writes nothing,
 * its inserts included: the caller then decides again under a lock. One round trip and no
 * transaction held open while the application decides.
 */
export function writesIfUnchanged(expected: SQLWrapper, writes: readonly SQLWrapper[]): SQL {
  return sql`WITH locked AS (${expected.getSQL()}), ${writeClauses(writes)} SELECT expect_unchanged((SELECT count(*) FROM locked)) AS found`;
}

/** SQLSTATE 40001, as the driver reports it: the statement lost a race and wrote nothing. */
export function isSerializationFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '40001';
}
