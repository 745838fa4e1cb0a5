import { eq, sql } from 'drizzle-orm';
import { type Database, oncePerHandle } from '../db/index.ts';
import { rowsInsert } from '../db/rows-insert.ts';
import { mailOutbox } from '../db/schema.ts';
import {
  batchedByTurn,
  dateOrNull,
  executePart,
  executePlannedEachTime,
  executeRows,
  type StatementPart,
  sqlOf,
  sqlPart,
  writesTogether,
} from '../db/sql.ts';
import { auditRowInsert, auditRowsInsert, type NewAuditRow } from './audit-log.ts';

/** The outbox of mail to send: every statement about its table. */

export type OutboxMail = typeof mailOutbox.$inferSelect;

/** A mail to keep until it is sent, due at `nextAttemptAt`; dropped unsent from `expiresAt` on, if it has one. */
export type NewOutboxMail = Required<
  Pick<
    typeof mailOutbox.$inferInsert,
    | 'tenantId'
    | 'toAddress'
    | 'subject'
    | 'textBody'
    | 'htmlBody'
    | 'headers'
    | 'createdAt'
    | 'nextAttemptAt'
    | 'expiresAt'
    | 'evidence'
    | 'priority'
  >
>;

/** A mail's place in the claim's order: consumers' one-time codes go ahead of every other mail. */
export const mailPriority = { oneTimeCode: 1, usual: 0 } as const;

const outboxInsert = rowsInsert(mailOutbox, [
  'tenantId',
  'toAddress',
  'subject',
  'textBody',
  'htmlBody',
  'headers',
  'createdAt',
  'nextAttemptAt',
  'expiresAt',
  'evidence',
  'priority',
]);

/**
 * The insert of one mail, not yet run: to commit in the statement of what the mail belongs to,
 * only when `where` holds there if it is given.
 */
export function outboxMailInsert(mail: NewOutboxMail, where?: StatementPart): StatementPart {
  return outboxInsert([mail], where);
}

/** Keeps the mail in the outbox; answers its id. */
export async function insertOutboxMail(db: Database, mail: NewOutboxMail): Promise<number> {
  const insert = outboxMailInsert(mail);
  const [row] = await executeRows<{ id: number | string }>(db, sqlOf(sqlPart`${insert} RETURNING id`));
  if (row === undefined) throw new Error('mail insert returned no row');
  return Number(row.id);
}

/** The outbox's columns as a raw statement returns them. */
interface OutboxRowAsRead {
  id: number | string;
  tenant_id: number | null;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  headers: Record<string, string>;
  created_at: Date | string;
  sent_at: Date | string | null;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date | string;
  expires_at: Date | string | null;
  evidence: OutboxMail['evidence'];
  priority: number;
}

const outboxMailOf = (row: OutboxRowAsRead): OutboxMail => ({
  id: Number(row.id),
  tenantId: row.tenant_id,
  toAddress: row.to_address,
  subject: row.subject,
  textBody: row.text_body,
  htmlBody: row.html_body,
  headers: row.headers,
  createdAt: new Date(row.created_at),
  sentAt: dateOrNull(row.sent_at),
  attempts: row.attempts,
  lastError: row.last_error,
  nextAttemptAt: new Date(row.next_attempt_at),
  expiresAt: dateOrNull(row.expires_at),
  evidence: row.evidence,
  priority: row.priority,
});

/**
 * Claims up to `limit` mails due at `now` until `leaseUntil`, highest priority first and then in
 * id order, in one statement: rows another instance is claiming at the same moment are skipped,
 * and a claim lapses at its lease. Planned each time: a plan kept from while the outbox was nearly
 * empty would read every mail in it once it has filled (the findings of bench/RESULTS.md).
 */
export async function claimDueMail(
  db: Database,
  claim: { now: Date; leaseUntil: Date; limit: number },
): Promise<OutboxMail[]> {
  const claimed = await executePlannedEachTime<OutboxRowAsRead>(
    db,
    sqlPart`UPDATE mail_outbox SET next_attempt_at = ${claim.leaseUntil.toISOString()}::timestamptz
  WHERE id IN (SELECT id FROM mail_outbox
    WHERE sent_at IS NULL AND next_attempt_at <= ${claim.now.toISOString()}::timestamptz
    ORDER BY priority DESC, id LIMIT ${claim.limit}::integer FOR UPDATE SKIP LOCKED)
  RETURNING id, tenant_id, to_address, subject, text_body, html_body, headers, created_at, sent_at,
    attempts, last_error, next_attempt_at, expires_at, evidence, priority`,
  );
  return claimed.map(outboxMailOf).sort((a, b) => b.priority - a.priority || a.id - b.id);
}

/** Records a failed send: the mail stays, due again at `nextAttemptAt`. */
export async function markOutboxMailFailed(
  db: Database,
  id: number,
  failure: { attempts: number; lastError: string; nextAttemptAt: Date },
): Promise<void> {
  await db.update(mailOutbox).set(failure).where(eq(mailOutbox.id, id));
}

/** A mail its SMTP server accepted at `at`, with the audit row of its sending. */
export interface SentMark {
  id: number;
  at: Date;
  auditRow: NewAuditRow;
}

/**
 * The marks and their audit rows in one statement, which commit together; the ids and instants go
 * as two lists, so one text serves any number of marks with the same number of audit rows.
 */
const markSent = async (db: Database, marks: readonly SentMark[]) => {
  const sentAt = sqlPart`UPDATE mail_outbox AS m SET sent_at = v.sent_at
  FROM unnest(string_to_array(${marks.map((mark) => mark.id).join(',')}::text, ',')::bigint[],
    string_to_array(${marks.map((mark) => mark.at.toISOString()).join(',')}::text, ',')::timestamptz[]) AS v(id, sent_at)
  WHERE m.id = v.id`;
  await executePlannedEachTime(
    db,
    writesTogether([sentAt, auditRowsInsert(marks.map((mark) => mark.auditRow))]),
  );
};

/** Each database's marker of sent mail: the marks of one turn share a statement. */
const sentMarkersOf = oncePerHandle((db) =>
  batchedByTurn<SentMark, void>({
    shapeOf: () => '',
    rowsOf: (mark) => [String(mark.id)],
    perStatement: 16,
    async runTogether(marks) {
      await markSent(db, marks);
      return marks.map(() => undefined);
    },
    runAlone: (mark) => markSent(db, [mark]),
  }),
);

/**
 * Marks the mail sent and adds the audit row of its sending in the same statement; the marks that
 * come in the same turn of the event loop share one.
 */
export function markOutboxMailSent(db: Database, mark: SentMark): Promise<void> {
  return sentMarkersOf(db)(mark);
}

/**
 * Deletes the unsent mails of `ids`, with `auditRows` (the record of why) in the same statement:
 * both commit together.
 */
export async function deleteUnsentOutboxMail(
  db: Database,
  ids: readonly number[],
  auditRows: readonly NewAuditRow[],
): Promise<void> {
  if (ids.length === 0) return;
  const deletion = sqlPart`DELETE FROM mail_outbox
  WHERE id = ANY(string_to_array(${ids.join(',')}::text, ',')::bigint[]) AND sent_at IS NULL`;
  await executePart(db, writesTogether([deletion, ...auditRows.map(auditRowInsert)]));
}

/** Deletes up to `limit` mails sent before `cutoff`; answers how many it deleted. */
export async function deleteOutboxMailSentBefore(db: Database, cutoff: Date, limit: number): Promise<number> {
  // SKIP LOCKED: instances pruning at the same time each take other rows.
  const deleted = await executeRows<{ deleted: number }>(
    db,
    sql`
      WITH sent AS (
        SELECT id FROM mail_outbox WHERE sent_at < ${cutoff}
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      )
      DELETE FROM mail_outbox WHERE id IN (SELECT id FROM sent) RETURNING 1 AS deleted`,
  );
  return deleted.length;
}

/** How many mails wait unsent, and since when the oldest has waited. */
export async function unsentMailBacklog(
  db: Database,
): Promise<{ unsent: number; oldestCreatedAt: Date | null }> {
  const [row] = await executeRows<{ unsent: number | string; oldest: Date | string | null }>(
    db,
    sql`SELECT count(*) AS unsent, min(created_at) AS oldest FROM mail_outbox WHERE sent_at IS NULL`,
  );
  return {
    unsent: Number(row?.unsent ?? 0),
    oldestCreatedAt: row?.oldest === null || row?.oldest === undefined ? null : new Date(row.oldest),
  };
}
