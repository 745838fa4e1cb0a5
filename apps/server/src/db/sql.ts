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
  const clauses = writes.map((write, index) => sql`${sql.raw(`w${index}`)} AS (${write.getSQL()})`);
  return sql`WITH ${sql.join(clauses, sql`, `)} ${main.getSQL()}`;
}
