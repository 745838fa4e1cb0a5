import { and, eq, isNull } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { sessions } from '../db/schema.ts';
import { executePart } from '../db/sql.ts';

/** $1 the consumer, $2 the session to keep, $3 now. A fixed text: every lookup sign-in runs it. */
const endEarlierText = `UPDATE sessions SET revoked_at = $3::timestamptz, revoked_reason = 'replaced by a new lookup'
  WHERE consumer_id = $1::bigint AND access_type = 'MfaPending' AND revoked_at IS NULL AND id <> $2::uuid
  RETURNING id`;

/**
 * Ends the consumer's pending MFA sessions other than `keep`, the one a new lookup just opened, so
 * each lookup does not add a code and five tries of its own; answers the ids of those it ended.
 */
export async function endEarlierPendingSessions(
  db: Database,
  consumerId: number,
  keep: string,
  now: Date,
): Promise<string[]> {
  const ended = await executePart<{ id: string }>(db, {
    text: endEarlierText,
    values: [consumerId, keep, now.toISOString()],
  });
  return ended.map((session) => session.id);
}

/** Ends a pending session for `cause`, e.g. its code could not be mailed. */
export async function endPendingSession(
  db: Database,
  sessionId: string,
  cause: string,
  now: Date,
): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: now, revokedReason: cause })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}
