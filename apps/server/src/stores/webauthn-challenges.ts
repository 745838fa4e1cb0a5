import type { StaffKind } from '@entry/domain';
import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { type WebauthnPurpose, webauthnChallenges } from '../db/schema.ts';

/** WebAuthn challenges: every statement on `webauthn_challenges`. */

export type NewWebauthnChallenge = Omit<typeof webauthnChallenges.$inferInsert, 'usedAt'>;

export async function insertChallenge(db: Database, challenge: NewWebauthnChallenge): Promise<void> {
  await db.insert(webauthnChallenges).values(challenge);
}

/**
 * Records a challenge that was stored nowhere as answered, with the instant it expires: true for
 * the first answer only (its id is the key), so of parallel answers at most one gets it.
 */
export async function recordAnsweredChallenge(
  db: Database,
  challenge: typeof webauthnChallenges.$inferInsert,
): Promise<boolean> {
  const recorded = await db
    .insert(webauthnChallenges)
    .values(challenge)
    .onConflictDoNothing()
    .returning({ id: webauthnChallenges.id });
  return recorded.length === 1;
}

/** What a claim must match: the purpose and kind it was made for, and its session (null: none). */
export interface ChallengeClaim {
  id: string;
  purpose: WebauthnPurpose;
  kind: StaffKind;
  sessionId: string | null;
  now: Date;
}

/**
 * Uses the challenge once: only an unused, unexpired challenge of that purpose, kind and session
 * is marked used, by one conditional update, so of parallel answers at most one gets it. Answers
 * the challenge (base64url), or undefined.
 */
export async function claimChallenge(db: Database, claim: ChallengeClaim): Promise<string | undefined> {
  const [claimed] = await db
    .update(webauthnChallenges)
    .set({ usedAt: claim.now })
    .where(
      and(
        eq(webauthnChallenges.id, claim.id),
        isNull(webauthnChallenges.usedAt),
        gt(webauthnChallenges.expiresAt, claim.now),
        eq(webauthnChallenges.purpose, claim.purpose),
        eq(webauthnChallenges.kind, claim.kind),
        claim.sessionId === null
          ? isNull(webauthnChallenges.sessionId)
          : eq(webauthnChallenges.sessionId, claim.sessionId),
      ),
    )
    .returning({ challenge: webauthnChallenges.challenge });
  return claimed?.challenge;
}

/**
 * Deletes challenges expired before `cutoff`, `limit` at most; answers how many. A used one is
 * kept until then too: the row of an answered signed challenge is what refuses it a second time.
 */
export async function deleteChallengesEndedBefore(
  db: Database,
  cutoff: Date,
  limit: number,
): Promise<number> {
  const ended = db
    .select({ id: webauthnChallenges.id })
    .from(webauthnChallenges)
    .where(lt(webauthnChallenges.expiresAt, cutoff))
    .limit(limit);
  const deleted = await db
    .delete(webauthnChallenges)
    .where(sql`${webauthnChallenges.id} IN (${ended})`)
    .returning({ id: webauthnChallenges.id });
  return deleted.length;
}
