import { sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { codeMailBudgets } from '../db/schema.ts';
import { executePart, fixedText, type StatementPart, sqlPart } from '../db/sql.ts';
import { type NewOutboxMail, outboxMailInsert } from './mail-outbox.ts';
import { earlierPendingSessionsEnd } from './session-endings.ts';

/**
 * At most five one-time code mails per consumer per hour (docs/rules.md#attempt-budgets): a mail takes its
 * place in the last hour's list before it is written, in one conditional upsert, so parallel
 * lookups and resends on any instance send at most five. A fixed text, prepared once per
 * connection: every lookup sign-in with MFA runs it (decision record 019).
 */

const codeMailsPerHour = 5;
const hourMs = 60 * 60_000;

/** The upsert that takes a mail's place in the consumer's last hour, returning a row only when it did. */
function placeTaken(consumerId: number, now: Date, hourAgo: string): StatementPart {
  const sentAt = now.toISOString();
  return sqlPart`INSERT INTO code_mail_budgets AS b (consumer_id, sent_at) VALUES (${consumerId}::bigint, ARRAY[${sentAt}::timestamptz])
  ON CONFLICT (consumer_id) DO UPDATE
    SET sent_at = ARRAY(SELECT sent FROM unnest(b.sent_at) AS sent WHERE sent > ${hourAgo}::timestamptz ORDER BY sent) || ${sentAt}::timestamptz
    WHERE (SELECT count(*) FROM unnest(b.sent_at) AS sent WHERE sent > ${hourAgo}::timestamptz) < ${codeMailsPerHour}::integer
  RETURNING consumer_id`;
}

/** How long until a place of a full hour frees up, from the oldest mail of that hour. */
function retryAfterMs(oldest: Date | string | null, now: Date): number {
  const freesAt = oldest === null ? now.getTime() : new Date(oldest).getTime() + hourMs;
  return Math.max(1000, freesAt - now.getTime());
}

interface TakenRow {
  taken: boolean;
  oldest: Date | string | null;
  ended: string[];
}

/**
 * Takes a mail's place and runs `ifTaken`'s writes in the same statement, only when the place was
 * taken; reads the hour's oldest mail for the answer of a full hour.
 */
async function take(
  db: Database,
  consumerId: number,
  now: Date,
  ifTaken: (taken: StatementPart) => { mail?: StatementPart; ended?: StatementPart },
): Promise<{ ended: string[] } | { retryAfterMs: number }> {
  const hourAgo = new Date(now.getTime() - hourMs).toISOString();
  const writes = ifTaken(fixedText('EXISTS (SELECT 1 FROM taken)'));
  const [row] = await executePart<TakenRow>(
    db,
    sqlPart`WITH taken AS (${placeTaken(consumerId, now, hourAgo)}),
    mailed AS (${writes.mail ?? fixedText('SELECT 1')}),
    ended AS (${writes.ended ?? fixedText('SELECT NULL::text AS id WHERE false')})
  SELECT EXISTS (SELECT 1 FROM taken) AS taken,
    (SELECT min(sent) FROM code_mail_budgets b, unnest(b.sent_at) AS sent
      WHERE b.consumer_id = ${consumerId}::bigint AND sent > ${hourAgo}::timestamptz) AS oldest,
    ARRAY(SELECT id FROM ended) AS ended`,
  );
  if (row === undefined) throw new Error('the code mail budget answered no row');
  return row.taken ? { ended: row.ended } : { retryAfterMs: retryAfterMs(row.oldest, now) };
}

/** Takes a mail's place; when the hour is full, how long until a place frees up. */
export async function takeCodeMail(
  db: Database,
  consumerId: number,
  now: Date,
): Promise<{ taken: true } | { retryAfterMs: number }> {
  const taken = await take(db, consumerId, now, () => ({}));
  return 'retryAfterMs' in taken ? taken : { taken: true };
}

/**
 * A lookup's code mail, in one statement: takes its place in the consumer's hour and, only when it
 * is taken, queues the mail and ends the consumer's
 * earlier pending sessions. Answers their ids, or how long until a place frees up.
 */
export function takeLookupCodeMail(
  db: Database,
  input: {
    consumerId: number;
    sessionId: string;
    now: Date;
    mail: NewOutboxMail;
  },
): Promise<{ ended: string[] } | { retryAfterMs: number }> {
  return take(db, input.consumerId, input.now, (taken) => ({
    mail: outboxMailInsert(input.mail, taken),
    ended: earlierPendingSessionsEnd(input.consumerId, input.sessionId, input.now, taken),
  }));
}

/** Gives back a place taken for a mail that was not sent after all. */
export async function giveBackCodeMail(db: Database, consumerId: number): Promise<void> {
  await db
    .update(codeMailBudgets)
    .set({ sentAt: sql`trim_array(${codeMailBudgets.sentAt}, 1)` })
    .where(sql`${codeMailBudgets.consumerId} = ${consumerId} AND cardinality(${codeMailBudgets.sentAt}) > 0`);
}
