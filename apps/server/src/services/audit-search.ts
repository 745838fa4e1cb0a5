import type { AuditFilterQuery, AuditPage, AuditRowView } from '@entry/domain';
import type { Database } from '../db/index.ts';
import { refuse } from '../refusals.ts';
import { type AuditFilter, type AuditPosition, auditRowsPage } from '../stores/audit-log.ts';
import { consumersOnFile } from '../stores/consumers.ts';
import { toAuditRecord } from './audit-export.ts';

/**
 * The console's audit log: the rows a filter picks, newest first, a page at a time. A page's
 * cursor is the position of its last row, so the next page starts there through the index, at
 * any depth, and rows written meanwhile neither repeat nor push rows off a page.
 */

export const auditPageSizeDefault = 50;

/** The store's filter of the console's query; undefined when it can match no row at all. */
export async function auditFilterOf(db: Database, query: AuditFilterQuery): Promise<AuditFilter | undefined> {
  const actors: string[] = [];
  if (query.consumerId !== undefined) {
    if (query.customerId === undefined) throw refuse('consumerFilterNeedsTenant');
    const found = (await consumersOnFile(db, query.customerId, [query.consumerId])).get(query.consumerId);
    if (found === undefined) return undefined;
    actors.push(`consumer:${found.id}`);
  }
  if (query.actor !== undefined) {
    // Both given: only rows of that consumer that are also that actor.
    if (actors.length > 0 && actors[0] !== query.actor) return undefined;
    if (actors.length === 0) actors.push(query.actor);
  }
  return {
    tenantId: query.customerId,
    actors: actors.length === 0 ? undefined : actors,
    ip: query.ip,
    event: query.event,
    outcome: query.outcome,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}

/** The cursor of the page after the row at `position`. */
export function auditCursorOf(position: AuditPosition): string {
  return Buffer.from(`${position.atMicros}.${position.id}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): AuditPosition {
  const match = /^(\d{1,19})\.(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match?.[1] === undefined || match[2] === undefined) throw refuse('invalidAuditCursor');
  return { atMicros: BigInt(match[1]), id: Number(match[2]) };
}

function toView(row: ReturnType<typeof toAuditRecord>): AuditRowView {
  const { tenantId, ...rest } = row;
  return { ...rest, customerId: tenantId };
}

/** One page of the filtered rows, newest first, after the cursor's row. */
export async function searchAudit(
  db: Database,
  query: AuditFilterQuery & { cursor?: string | undefined; limit?: number | undefined },
): Promise<AuditPage> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const filter = await auditFilterOf(db, query);
  if (filter === undefined) return { rows: [], nextCursor: null };
  const limit = query.limit ?? auditPageSizeDefault;
  // One row more than the page says whether another page follows.
  const rows = await auditRowsPage(db, { filter, after, limit: limit + 1, newestFirst: true });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    rows: page.map((row) => toView(toAuditRecord(row))),
    nextCursor: rows.length > limit && last !== undefined ? auditCursorOf(last) : null,
  };
}
