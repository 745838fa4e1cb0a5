import { and, eq, isNull, ne } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { sessions } from '../db/schema.ts';

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
  const ended = await db
    .update(sessions)
    .set({ revokedAt: now, revokedReason: 'replaced by a new lookup' })
    .where(
      and(
        eq(sessions.consumerId, consumerId),
        eq(sessions.accessType, 'MfaPending'),
        isNull(sessions.revokedAt),
        ne(sessions.id, keep),
      ),
    )
    .returning({ id: sessions.id });
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
