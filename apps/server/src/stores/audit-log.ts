import { and, asc, desc, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
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

/** The insert of rows, not yet run: to commit in the statement of the writes they describe. */
export const auditRowsInsert = rowsInsert(auditLog, [
  'at',
  'event',
  'outcome',
  'actor',
  'tenantId',
  'ip',
  'detail',
]);

/** The insert of one row, not yet run. */
export function auditRowInsert(row: NewAuditRow): StatementPart {
  return auditRowsInsert([row]);
}

/** Adds the rows in one insert; the table is append-only. */
export async function insertAuditRows(db: Executor, rows: readonly NewAuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.execute(sqlOf(auditRowsInsert(rows)));
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

/** Which audit rows a search or an export reads; every field left out matches every row. */
export interface AuditFilter {
  /** Inclusive. */
  from?: Date | undefined;
  /** Exclusive. */
  to?: Date | undefined;
  tenantId?: number | undefined;
  /** Any of these actors (`admin:3`, `consumer:17`, a typed username). */
  actors?: readonly string[] | undefined;
  ip?: string | undefined;
  event?: string | undefined;
  outcome?: string | undefined;
}

/** A row's place in time order: its instant to the microsecond, and its id. */
export interface AuditPosition {
  atMicros: bigint;
  id: number;
}

export type AuditRowWithPosition = AuditRow & { atMicros: bigint };

function filterConditions(filter: AuditFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.from !== undefined) conditions.push(gte(auditLog.at, filter.from));
  if (filter.to !== undefined) conditions.push(lt(auditLog.at, filter.to));
  if (filter.tenantId !== undefined) conditions.push(eq(auditLog.tenantId, filter.tenantId));
  if (filter.actors !== undefined) conditions.push(inArray(auditLog.actor, [...filter.actors]));
  if (filter.ip !== undefined) conditions.push(eq(auditLog.ip, filter.ip));
  if (filter.event !== undefined) conditions.push(eq(auditLog.event, filter.event));
  if (filter.outcome !== undefined) conditions.push(eq(auditLog.outcome, filter.outcome));
  return conditions;
}

// The instant as whole microseconds since the epoch: a JavaScript Date keeps only milliseconds,
// and a cursor that rounded would repeat or skip rows of the same millisecond.
const atMicros = sql<string>`(extract(epoch from ${auditLog.at}) * 1000000)::bigint::text`;
const instantOf = (micros: bigint) =>
  sql`('epoch'::timestamptz + ${micros.toString()}::bigint * interval '1 microsecond')`;

/**
 * A page of the filtered rows in time order then id (`newestFirst` reverses both), after the row
 * at `after`. Keyset paging: each page starts at an index position, never by skipping rows.
 */
export async function auditRowsPage(
  db: Database,
  page: { filter: AuditFilter; after?: AuditPosition | undefined; limit: number; newestFirst?: boolean },
): Promise<AuditRowWithPosition[]> {
  const conditions = filterConditions(page.filter);
  const { after } = page;
  if (after !== undefined) {
    conditions.push(
      page.newestFirst === true
        ? sql`(${auditLog.at}, ${auditLog.id}) < (${instantOf(after.atMicros)}, ${after.id})`
        : sql`(${auditLog.at}, ${auditLog.id}) > (${instantOf(after.atMicros)}, ${after.id})`,
    );
  }
  const order =
    page.newestFirst === true ? [desc(auditLog.at), desc(auditLog.id)] : [asc(auditLog.at), asc(auditLog.id)];
  const rows = await db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      event: auditLog.event,
      outcome: auditLog.outcome,
      actor: auditLog.actor,
      tenantId: auditLog.tenantId,
      ip: auditLog.ip,
      detail: auditLog.detail,
      atMicros,
    })
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(...order)
    .limit(page.limit);
  return rows.map((row) => ({ ...row, atMicros: BigInt(row.atMicros) }));
}

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
