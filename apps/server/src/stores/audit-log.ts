import { and, asc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { rowsInsert } from '../db/rows-insert.ts';
import { auditLog, linkOpenings } from '../db/schema.ts';
import { executeRows, type StatementPart, sqlOf } from '../db/sql.ts';

/** The audit trail and the hourly marks of link openings: every statement about their tables. */

export type AuditRow = typeof auditLog.$inferSelect;

/** An audit row to add; the database gives it its id. */
export type NewAuditRow = Required<Omit<typeof auditLog.$inferInsert, 'id'>>;

/** Whatever runs a statement: the database, or a transaction on it. */
type Executor = Pick<Database, 'execute'>;

const auditInsert = rowsInsert(auditLog, ['at', 'event', 'outcome', 'actor', 'tenantId', 'ip', 'detail']);

/** The insert of one row, not yet run: to commit in the statement of the writes it describes. */
export function auditRowInsert(row: NewAuditRow): StatementPart {
  return auditInsert([row]);
}

/** Adds the rows in one insert; the table is append-only. */
export async function insertAuditRows(db: Executor, rows: readonly NewAuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(sqlOf(auditInsert(rows)));
}

/** A link opening to audit once per link, address and hour. */
export interface LinkOpeningRow {
  identityTokenGuid: string;
  ip: string;
  row: NewAuditRow;
}

/**
 * Marks each opening's link and address for `hour`, and audits the openings whose mark is new, in
 * one transaction: the insert of the mark decides, on every instance at once.
 */
export async function insertFirstLinkOpenings(
  db: Database,
  hour: Date,
  openings: readonly LinkOpeningRow[],
): Promise<void> {
  if (openings.length === 0) return;
  const keyOf = (guid: string, ip: string) => `${guid} ${ip}`;
  const byKey = new Map<string, LinkOpeningRow>();
  for (const opening of openings) {
    const key = keyOf(opening.identityTokenGuid, opening.ip);
    if (!byKey.has(key)) byKey.set(key, opening);
  }
  // In key order: two instances marking the same openings then wait on each other, never deadlock.
  const marks = [...byKey.values()]
    .map(({ identityTokenGuid, ip }) => ({ hour, identityTokenGuid, ip }))
    .sort((a, b) => compareText(a.identityTokenGuid, b.identityTokenGuid) || compareText(a.ip, b.ip));
  await db.transaction(async (tx) => {
    const marked = await tx
      .insert(linkOpenings)
      .values(marks)
      .onConflictDoNothing()
      .returning({ identityTokenGuid: linkOpenings.identityTokenGuid, ip: linkOpenings.ip });
    const rows = marked.flatMap((mark) => byKey.get(keyOf(mark.identityTokenGuid, mark.ip))?.row ?? []);
    await insertAuditRows(tx, rows);
  });
}

/** Deletes up to `limit` marks of hours before `cutoff`; answers how many it deleted. */
export async function deleteLinkOpeningMarksBefore(
  db: Database,
  cutoff: Date,
  limit: number,
): Promise<number> {
  // SKIP LOCKED: instances pruning at the same time each take other rows.
  const deleted = await executeRows<{ deleted: number }>(
    db,
    sql`
      WITH past AS (
        SELECT hour, identity_token_guid, ip FROM link_openings WHERE hour < ${cutoff}
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      DELETE FROM link_openings l USING past
      WHERE (l.hour, l.identity_token_guid, l.ip) = (past.hour, past.identity_token_guid, past.ip)
      RETURNING 1 AS deleted`,
  );
  return deleted.length;
}

/** A page of the rows of `from` (inclusive) to `to` (exclusive), in time order then id, after `after`. */
export async function auditRowsPage(
  db: Database,
  page: { from: Date; to: Date; tenantId?: number; after?: { at: Date; id: number }; limit: number },
): Promise<AuditRow[]> {
  const conditions: SQL[] = [gte(auditLog.at, page.from), lt(auditLog.at, page.to)];
  if (page.tenantId !== undefined) conditions.push(eq(auditLog.tenantId, page.tenantId));
  // Keyset paging on (at, id): each page starts after the last row of the previous one.
  if (page.after !== undefined)
    conditions.push(
      sql`(${auditLog.at}, ${auditLog.id}) > (${page.after.at.toISOString()}::timestamptz, ${page.after.id})`,
    );
  return db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(asc(auditLog.at), asc(auditLog.id))
    .limit(page.limit);
}

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
