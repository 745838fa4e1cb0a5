import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { codeMailBudgets } from '../db/schema.ts';

/**
 * At most five one-time code mails per consumer per hour (DESIGN.md, wave 2): a mail takes its
 * place in the last hour's list before it is written, in one conditional upsert, so parallel
 * lookups and resends on any instance send at most five.
 */

export const codeMailsPerHour = 5;
const hourMs = 60 * 60_000;

const timestamp = (date: Date) => sql`${date.toISOString()}::timestamptz`;

/** The times of the last hour's mails, oldest first. */
const lastHour = (now: Date) =>
  sql`ARRAY(SELECT sent FROM unnest(${codeMailBudgets.sentAt}) AS sent WHERE sent > ${timestamp(new Date(now.getTime() - hourMs))} ORDER BY sent)`;

/** Takes a mail's place; when the hour is full, how long until a place frees up. */
export async function takeCodeMail(
  db: Database,
  consumerId: number,
  now: Date,
): Promise<{ taken: true } | { retryAfterMs: number }> {
  const [row] = await db
    .insert(codeMailBudgets)
    .values({ consumerId, sentAt: [now] })
    .onConflictDoUpdate({
      target: codeMailBudgets.consumerId,
      set: { sentAt: sql`${lastHour(now)} || ${timestamp(now)}` },
      setWhere: sql`cardinality(${lastHour(now)}) < ${codeMailsPerHour}`,
    })
    .returning({ consumerId: codeMailBudgets.consumerId });
  if (row !== undefined) return { taken: true };
  const [oldest] = await db
    .select({ sentAt: sql<string | null>`(${lastHour(now)})[1]` })
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
