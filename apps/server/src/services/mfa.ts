import { createHmac, randomInt } from 'node:crypto';
import { and, desc, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { mfaCodes, sessions } from '../db/schema.ts';
import { type StatementPart, sqlOf } from '../db/sql.ts';
import {
  type Budget,
  recordFailedAttempt,
  recordSucceededAttempt,
  takeAttempt,
} from '../stores/attempt-budgets.ts';
import type { LockPolicy } from './kba-locks.ts';
import { hashesEqual } from './keyed-hash.ts';

/**
 * One-time codes of the consumer MFA step (DESIGN.md section 5): 6 digits, mailed, valid 10
 * minutes, 5 tries, single use; a resend voids the earlier code and is allowed once a minute.
 * Codes are stored only as keyed hashes bound to their session.
 */

export const mfaCodeLifetimeMs = 10 * 60_000;
export const mfaMaxAttempts = 5;
export const mfaResendIntervalMs = 60_000;

export function generateMfaCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

export function hashMfaCode(pepper: string, sessionId: string, code: string): string {
  return createHmac('sha256', pepper).update(`mfa:${sessionId}:${code}`).digest('hex');
}

interface IssueInput {
  sessionId: string;
  pepper: string;
  now: Date;
}

type Executor = Pick<Database, 'execute' | 'update'>;

async function replaceCode(executor: Executor, input: IssueInput): Promise<string> {
  const code = generateMfaCode();
  await executor
    .update(mfaCodes)
    .set({ usedAt: input.now })
    .where(and(eq(mfaCodes.sessionId, input.sessionId), isNull(mfaCodes.usedAt)));
  await executor.execute(sqlOf(mfaCodeInsert({ ...input, code })));
  return code;
}

/**
 * The insert of a code, not yet run. A new session's first code goes into the session's own
 * statement (it has no earlier code to void); the code in clear goes only into the mail.
 */
export function mfaCodeInsert(input: IssueInput & { code: string }): StatementPart {
  return {
    text:
      'INSERT INTO mfa_codes (session_id, code_hash, expires_at, created_at) ' +
      'VALUES ($1::uuid, $2::text, $3::timestamptz, $4::timestamptz)',
    values: [
      input.sessionId,
      hashMfaCode(input.pepper, input.sessionId, input.code),
      new Date(input.now.getTime() + mfaCodeLifetimeMs).toISOString(),
      input.now.toISOString(),
    ],
  };
}

/**
 * A new code for the session, voiding the earlier one, unless the last one is less than a minute
 * old. The session row is locked so that parallel resends issue at most one code.
 */
export async function resendMfaCode(
  db: Database,
  input: IssueInput,
): Promise<{ code: string } | { retryAfterMs: number }> {
  return db.transaction(async (tx) => {
    await tx.select({ id: sessions.id }).from(sessions).where(eq(sessions.id, input.sessionId)).for('update');
    const [latest] = await tx
      .select({ createdAt: mfaCodes.createdAt })
      .from(mfaCodes)
      .where(eq(mfaCodes.sessionId, input.sessionId))
      .orderBy(desc(mfaCodes.id))
      .limit(1);
    if (latest !== undefined) {
      const waited = input.now.getTime() - latest.createdAt.getTime();
      if (waited < mfaResendIntervalMs) return { retryAfterMs: mfaResendIntervalMs - waited };
    }
    return { code: await replaceCode(tx, input) };
  });
}

/** 10 wrong codes across a consumer's pending sessions lock its MFA step, with a link's lock policy. */
export const consumerMfaLockPolicy: LockPolicy = { threshold: 10 };

const mfaBudgetOf = (consumerId: number): Budget => ({
  kind: 'consumer-mfa',
  key: String(consumerId),
  policy: consumerMfaLockPolicy,
});

export type MfaCodeCheck =
  | { outcome: 'accepted' }
  | { outcome: 'wrong'; lockedNow: boolean }
  | { outcome: 'locked'; lockedUntil: Date | null };

/**
 * Whether `code` is the session's current code. A try is paid twice before the code is compared:
 * from the consumer's MFA budget (10 across its pending sessions) and from the code's own 5 tries,
 * each in a single conditional statement, so parallel guesses on any instance get no more between
 * them; a right code is then marked used in a conditional UPDATE, so only one caller can use it.
 */
export async function consumeMfaCode(
  db: Database,
  input: { sessionId: string; consumerId: number; code: string; pepper: string; now: Date },
): Promise<MfaCodeCheck> {
  const budget = mfaBudgetOf(input.consumerId);
  const take = await takeAttempt(db, budget, input.now);
  if (!('taken' in take)) return { outcome: 'locked', lockedUntil: take.lockedUntil };
  if (await useCode(db, input)) {
    await recordSucceededAttempt(db, budget, take.taken);
    return { outcome: 'accepted' };
  }
  const failure = await recordFailedAttempt(db, budget, input.now);
  return { outcome: 'wrong', lockedNow: failure.lockedNow };
}

async function useCode(
  db: Database,
  input: { sessionId: string; code: string; pepper: string; now: Date },
): Promise<boolean> {
  const [attempt] = await db
    .update(mfaCodes)
    .set({ attempts: sql`${mfaCodes.attempts} + 1` })
    .where(
      and(
        eq(mfaCodes.sessionId, input.sessionId),
        isNull(mfaCodes.usedAt),
        gt(mfaCodes.expiresAt, input.now),
        lt(mfaCodes.attempts, mfaMaxAttempts),
      ),
    )
    .returning({ id: mfaCodes.id, codeHash: mfaCodes.codeHash });
  if (attempt === undefined) return false;
  if (!hashesEqual(hashMfaCode(input.pepper, input.sessionId, input.code), attempt.codeHash)) return false;
  const [used] = await db
    .update(mfaCodes)
    .set({ usedAt: input.now })
    .where(and(eq(mfaCodes.id, attempt.id), isNull(mfaCodes.usedAt)))
    .returning({ id: mfaCodes.id });
  return used !== undefined;
}
