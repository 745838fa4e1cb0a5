import { createHmac, randomInt } from 'node:crypto';
import type { Language, LockPolicy } from '@entry/domain';
import type { AttemptsLeft } from '../api-error.ts';
import type { Database } from '../db/index.ts';
import {
  type Budget,
  recordFailedAttempt,
  recordSucceededAttempt,
  takeAttempt,
} from '../stores/attempt-budgets.ts';
import { replaceCodeUnlessRecent, type StoredCode, takeCodeTry, useCode } from '../stores/mfa-codes.ts';
import { hashesEqual } from './keyed-hash.ts';

/**
 * One-time codes of the consumer MFA step (docs/rules.md#consumer-mfa): 6 digits, mailed, valid 10
 * minutes, 5 tries, single use; a resend voids the earlier code and is allowed once a minute.
 * Codes are stored only as keyed hashes bound to their session.
 */

export const mfaCodeLifetimeMs = 10 * 60_000;
const mfaMaxAttempts = 5;
const mfaResendIntervalMs = 60_000;

export function generateMfaCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

function hashMfaCode(pepper: string, sessionId: string, code: string): string {
  return createHmac('sha256', pepper).update(`mfa:${sessionId}:${code}`).digest('hex');
}

interface IssueInput {
  sessionId: string;
  pepper: string;
  now: Date;
  /** The language of the page the code was asked from, kept for the sign-in that completes. */
  language: Language | null;
}

/**
 * A code's row: only its keyed hash, bound to its session. A new session's first code is written
 * in the session's own statement; the code in clear goes only into the mail.
 */
export function mfaCodeRow(input: IssueInput & { code: string }): StoredCode {
  return {
    sessionId: input.sessionId,
    codeHash: hashMfaCode(input.pepper, input.sessionId, input.code),
    createdAt: input.now,
    expiresAt: new Date(input.now.getTime() + mfaCodeLifetimeMs),
    language: input.language,
  };
}

/** A new code for the session, voiding the earlier one, unless the last one is less than a minute old. */
export async function resendMfaCode(
  db: Database,
  input: IssueInput,
): Promise<{ code: string } | { retryAfterMs: number }> {
  const code = generateMfaCode();
  const replaced = await replaceCodeUnlessRecent(
    db,
    mfaCodeRow({ ...input, code }),
    new Date(input.now.getTime() - mfaResendIntervalMs),
  );
  if ('replaced' in replaced) return { code };
  return { retryAfterMs: mfaResendIntervalMs - (input.now.getTime() - replaced.latestAt.getTime()) };
}

/** 10 wrong codes across a consumer's pending sessions lock its MFA step, with a link's lock policy. */
const consumerMfaLockPolicy: LockPolicy = { threshold: 10 };

const mfaBudgetOf = (consumerId: number): Budget => ({
  kind: 'consumer-mfa',
  key: String(consumerId),
  policy: consumerMfaLockPolicy,
});

/** `language`: the page language kept with the accepted code, if any. */
export type MfaCodeCheck =
  | { outcome: 'accepted'; language: Language | null }
  | { outcome: 'wrong'; lockedNow: boolean; attempts: AttemptsLeft }
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
  const codeTry = await tryCode(db, input);
  if (codeTry.accepted) {
    await recordSucceededAttempt(db, budget, take.taken);
    return { outcome: 'accepted', language: codeTry.language };
  }
  const failure = await recordFailedAttempt(db, budget, input.now);
  if (failure.lockedNow) {
    return {
      outcome: 'wrong',
      lockedNow: true,
      attempts: { triesLeft: 0, lockedUntil: failure.lockedUntil },
    };
  }
  // Both budgets were taken before the comparison; the one with fewer tries left ends the next.
  const triesLeft = Math.max(0, Math.min(budget.policy.threshold - take.taken, codeTry.triesLeft));
  return { outcome: 'wrong', lockedNow: false, attempts: { triesLeft, lockedUntil: null } };
}

/**
 * A try of the session's current code: its tries are taken before it is compared, and a right one
 * is used once. A refused try says how many tries the code has left (none once it is used up,
 * used or expired).
 */
async function tryCode(
  db: Database,
  input: { sessionId: string; code: string; pepper: string; now: Date },
): Promise<{ accepted: true; language: Language | null } | { accepted: false; triesLeft: number }> {
  const attempt = await takeCodeTry(db, input.sessionId, input.now, mfaMaxAttempts);
  if (attempt === undefined) return { accepted: false, triesLeft: 0 };
  const triesLeft = mfaMaxAttempts - attempt.attempts;
  if (!hashesEqual(hashMfaCode(input.pepper, input.sessionId, input.code), attempt.codeHash)) {
    return { accepted: false, triesLeft };
  }
  return (await useCode(db, attempt.id, input.now))
    ? { accepted: true, language: attempt.language }
    : { accepted: false, triesLeft };
}
