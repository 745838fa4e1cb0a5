import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { codeMailBudgets } from '../db/schema.ts';
import { executePart, sqlPart } from '../db/sql.ts';

/**
 * At most five one-time code mails per consumer per hour (DESIGN.md, wave 2): a mail takes its
 * place in the last hour's list before it is written, in one conditional upsert, so parallel
 * lookups and resends on any instance send at most five. A fixed text, prepared once per
 * connection: every lookup sign-in with MFA runs it (decision record 019).
 */

export const codeMailsPerHour = 5;
const hourMs = 60 * 60_000;

/** Takes a mail's place; when the hour is full, how long until a place frees up. */
export async function takeCodeMail(
  db: Database,
  consumerId: number,
  now: Date,
): Promise<{ taken: true } | { retryAfterMs: number }> {
  const hourAgo = new Date(now.getTime() - hourMs).toISOString();
  const sentAt = now.toISOString();
  const taken = await executePart(
    db,
    sqlPart`INSERT INTO code_mail_budgets AS b (consumer_id, sent_at) VALUES (${consumerId}::bigint, ARRAY[${sentAt}::timestamptz])
  ON CONFLICT (consumer_id) DO UPDATE
    SET sent_at = ARRAY(SELECT sent FROM unnest(b.sent_at) AS sent WHERE sent > ${hourAgo}::timestamptz ORDER BY sent) || ${sentAt}::timestamptz
    WHERE (SELECT count(*) FROM unnest(b.sent_at) AS sent WHERE sent > ${hourAgo}::timestamptz) < ${codeMailsPerHour}::integer
  RETURNING consumer_id`,
  );
  if (taken.length > 0) return { taken: true };
  const [oldest] = await db
    .select({
      sentAt: sql<
        Date | string | null
      >`(SELECT min(sent) FROM unnest(${codeMailBudgets.sentAt}) AS sent WHERE sent > ${hourAgo}::timestamptz)`,
    })
    .from(codeMailBudgets)
    .where(eq(codeMailBudgets.consumerId, consumerId));
  const freesAt = oldest?.sentAt ? new Date(oldest.sentAt).getTime() + hourMs : now.getTime();
  return { retryAfterMs: Math.max(1000, freesAt - now.getTime()) };
}

/** Gives back a place taken for a mail that was not sent after all. */
export async function giveBackCodeMail(db: Database, consumerId: number): Promise<void> {
  await db
    .update(codeMailBudgets)
    .set({ sentAt: sql`trim_array(${codeMailBudgets.sentAt}, 1)` })
    .where(sql`${codeMailBudgets.consumerId} = ${consumerId} AND cardinality(${codeMailBudgets.sentAt}) > 0`);
}
