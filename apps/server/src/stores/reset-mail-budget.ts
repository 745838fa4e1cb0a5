import type { Database } from '../db/index.ts';
import { executePart, sqlPart } from '../db/sql.ts';

/**
 * At most three reset mails per staff user per hour: a request takes its place in the user's last
 * hour before its link and mail are made, in one conditional upsert, so parallel requests on any
 * instance make at most three.
 */

const resetMailsPerHour = 3;
const hourMs = 60 * 60_000;

/** Takes a reset mail's place in the user's last hour; false when the hour is full. */
export async function takeResetMail(db: Database, staffUserId: number, now: Date): Promise<boolean> {
  const sentAt = now.toISOString();
  const hourAgo = new Date(now.getTime() - hourMs).toISOString();
  const taken = await executePart<{ staff_user_id: number | string }>(
    db,
    sqlPart`INSERT INTO reset_mail_budgets AS b (staff_user_id, sent_at) VALUES (${staffUserId}::bigint, ARRAY[${sentAt}::timestamptz])
  ON CONFLICT (staff_user_id) DO UPDATE
    SET sent_at = ARRAY(SELECT sent FROM unnest(b.sent_at) AS sent WHERE sent > ${hourAgo}::timestamptz ORDER BY sent) || ${sentAt}::timestamptz
    WHERE (SELECT count(*) FROM unnest(b.sent_at) AS sent WHERE sent > ${hourAgo}::timestamptz) < ${resetMailsPerHour}::integer
  RETURNING staff_user_id`,
  );
  return taken.length > 0;
}
