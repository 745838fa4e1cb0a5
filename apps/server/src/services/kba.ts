import {
  allVerificationFields,
  consumerLockPolicy,
  isLocked,
  type Language,
  type LockState,
  lockStateOf,
  recordFailure,
  recordSuccess,
  type SignInType,
  sameLockState,
  settle,
  tokenLockPolicy,
  type VerificationField,
  verificationFieldsFor,
} from '@entry/domain';
import type { AttemptsLeft } from '../api-error.ts';
import type { Database } from '../db/index.ts';
import {
  type Budget,
  recordFailedAttempt,
  recordSucceededAttempt,
  takeAttempt,
} from '../stores/attempt-budgets.ts';
import type { RowWrites } from '../stores/row-writes.ts';
import {
  type AttemptWrites,
  type ConsumerRow,
  consumersWithAnswers,
  judgeUnderLock,
  type TokenKey,
  type VerificationRow,
  writeAttemptIfUnchanged,
} from '../stores/verifications.ts';
import { hashVerificationValue, verificationValueMatches } from './keyed-hash.ts';

/**
 * Knowledge-based verification of a consumer (docs/rules.md#verification). Lock counters live in the
 * rows of the consumer and the token and change only while both rows are locked (SELECT ... FOR
 * NO KEY UPDATE, always the consumer first so two requests never wait on each other in a circle),
 * and only from the state they hold then: an attempt decides on the rows as read and writes in one
 * statement that locks them again as they were (with the attempts on other consumers decided in the
 * same turn, decision record 018), or, when another attempt changed them meanwhile, decides again
 * under the locks. So 20 parallel wrong answers count as at most 5 tries, a right
 * answer during a lock is still refused, and all of it holds across server instances sharing the
 * database.
 */

export type VerificationAnswers = Partial<Record<VerificationField, string | null>>;

export interface VerifiedConsumer {
  id: number;
  consumerId: string;
  name: string;
  email: string | null;
  language: Language | null;
}

/** Every outcome of a verification but success. */
export type VerificationRefusal =
  | {
      outcome: 'locked';
      /** Null for a token-less verification, whose budget names no consumer. */
      consumer: VerifiedConsumer | null;
      /** Until when, where the budget knows it. */
      lockedUntil: Date | null;
    }
  | {
      outcome: 'mismatch';
      /** Null for a token-less verification that matched nobody. */
      consumer: VerifiedConsumer | null;
      tokenLockedNow: boolean;
      consumerLockedNow: boolean;
      attempts: AttemptsLeft;
    }
  | { outcome: 'ambiguous'; lockedNow: boolean; attempts: AttemptsLeft };

export type VerificationResult = { outcome: 'verified'; consumer: VerifiedConsumer } | VerificationRefusal;

const hashColumns = {
  last4Ssn: 'last4SsnHash',
  postalCode: 'postalCodeHash',
  dateOfBirth: 'dateOfBirthHash',
} as const satisfies Record<VerificationField, keyof ConsumerRow>;

/** The fields a request lacks for a token's sign-in type (a token-less request needs all three). */
export function missingFields(
  signInType: SignInType | null,
  answers: VerificationAnswers,
): VerificationField[] {
  return verificationFieldsFor(signInType).filter((field) => {
    const value = answers[field];
    return value === undefined || value === null || value.trim() === '';
  });
}

export function consumerOf(row: ConsumerRow): VerifiedConsumer {
  return { id: row.id, consumerId: row.consumerId, name: row.name, email: row.email, language: row.language };
}

export interface TokenVerificationInput {
  /** The rows as the caller read them with the token, without a lock. */
  asRead: VerificationRow;
  token: TokenKey;
  fields: readonly VerificationField[];
  answers: VerificationAnswers;
  pepper: string;
  now: Date;
  /**
   * What a success writes (the session it opens, its code and their audit row), decided by the
   * caller from the consumer as read before the verification: they run in the statement that
   * records the success, under the verification's row locks, so the verification and the session
   * commit together. Deciding again under the locks writes the same ones.
   */
  successWrites: RowWrites;
}

/** Tries left unknown: the budget's rows were gone when the answer was judged. */
const unknownAttempts: AttemptsLeft = { triesLeft: null, lockedUntil: null };

/** The end of the longer of two locks in force at `now`. */
function laterOf(first: LockState, second: LockState, now: Date): Date | null {
  const ends = [first, second]
    .filter((state) => isLocked(state, now))
    .map((state) => state.lockedUntil?.getTime() ?? 0);
  return ends.length === 0 ? null : new Date(Math.max(...ends));
}

/** What the rows decide: the result, and what it writes (nothing while locked). */
function decide(
  row: VerificationRow | undefined,
  input: TokenVerificationInput,
): { result: VerificationResult; writes?: AttemptWrites } {
  const { now } = input;
  if (row === undefined) {
    return {
      result: {
        outcome: 'mismatch',
        consumer: null,
        tokenLockedNow: false,
        consumerLockedNow: false,
        attempts: unknownAttempts,
      },
    };
  }
  const consumer = consumerOf(row.consumer);
  const consumerState = settle(lockStateOf(row.consumer), now);
  const tokenState = settle(lockStateOf(row.token), now);
  if (isLocked(consumerState, now) || isLocked(tokenState, now)) {
    return { result: { outcome: 'locked', consumer, lockedUntil: laterOf(consumerState, tokenState, now) } };
  }
  // The consumer's row is written only when its lock state changes: not on every sign-in.
  const writes = (
    consumerLocks: LockState,
    tokenLocks: AttemptWrites['tokenLocks'],
    alongside: RowWrites,
  ) => ({
    consumerId: row.consumer.id,
    token: input.token,
    consumerLocks: sameLockState(lockStateOf(row.consumer), consumerLocks) ? null : consumerLocks,
    tokenLocks,
    alongside,
  });
  // Every field is compared, so the time taken does not reveal which one was wrong.
  const matches = input.fields.map((field) =>
    verificationValueMatches(
      input.pepper,
      field,
      input.answers[field] ?? '',
      row.consumer[hashColumns[field]],
    ),
  );
  if (matches.length > 0 && matches.every(Boolean)) {
    return {
      result: { outcome: 'verified', consumer },
      writes: writes(
        recordSuccess(consumerState, now),
        { ...recordSuccess(tokenState, now), lastUsedAt: now },
        input.successWrites,
      ),
    };
  }
  const tokenFailure = recordFailure(tokenState, tokenLockPolicy, now);
  const consumerFailure = recordFailure(consumerState, consumerLockPolicy, now);
  const lockedNow = tokenFailure.lockedNow || consumerFailure.lockedNow;
  return {
    result: {
      outcome: 'mismatch',
      consumer,
      tokenLockedNow: tokenFailure.lockedNow,
      consumerLockedNow: consumerFailure.lockedNow,
      attempts: {
        // The link's budget and the consumer's across links: the nearer lock is the one that counts.
        triesLeft: lockedNow
          ? 0
          : Math.min(
              tokenLockPolicy.threshold - tokenFailure.state.failedCount,
              consumerLockPolicy.threshold - consumerFailure.state.failedCount,
            ),
        lockedUntil: lockedNow ? laterOf(tokenFailure.state, consumerFailure.state, now) : null,
      },
    },
    writes: writes(consumerFailure.state, tokenFailure.state, {}),
  };
}

/**
 * The common case, one attempt at a time on a consumer, decides on the rows as read without a
 * lock; when another attempt changed them before the write, it decides again with both rows locked.
 */
export async function verifyWithToken(
  db: Database,
  input: TokenVerificationInput,
): Promise<VerificationResult> {
  const { result, writes } = decide(input.asRead, input);
  if (writes === undefined || (await writeAttemptIfUnchanged(db, input.asRead, writes))) return result;
  return judgeUnderLock(db, { consumerId: input.asRead.consumer.id, token: input.token }, (row) =>
    decide(row, input),
  );
}

export interface TokenlessVerificationInput {
  tenantId: number;
  answers: VerificationAnswers;
  pepper: string;
  now: Date;
}

/** Token-less verifications of one tenant, ZIP code and date of birth share a budget, as a link's tries do. */
function identityBudget(tenantId: number, postalCodeHash: string, dateOfBirthHash: string): Budget {
  return {
    kind: 'tokenless-identity',
    key: `${tenantId}:${postalCodeHash}:${dateOfBirthHash}`,
    policy: tokenLockPolicy,
  };
}

/**
 * A consumer who typed the domain has no token: all three values must match exactly one consumer
 * of the tenant. The keyed hashes are deterministic, so the database finds the match by equality.
 * Each try is paid from the budget of its ZIP code and date of birth before it is judged, so the
 * last four SSN digits cannot be run through; while that budget is locked, every answer is the
 * same. An ambiguous match is a failure too. The consumer's own lock (counted by its links) is
 * not consulted: refusing only the right answers would tell them from the wrong ones. The
 * consumer is known only once matched: what a success leads to is the caller's to write.
 */
export async function verifyWithoutToken(
  db: Database,
  input: TokenlessVerificationInput,
): Promise<VerificationResult> {
  const [last4SsnHash, postalCodeHash, dateOfBirthHash] = allVerificationFields.map((field) =>
    hashVerificationValue(input.pepper, field, input.answers[field] ?? ''),
  );
  const { now } = input;
  if (!last4SsnHash || !postalCodeHash || !dateOfBirthHash) {
    return {
      outcome: 'mismatch',
      consumer: null,
      tokenLockedNow: false,
      consumerLockedNow: false,
      attempts: unknownAttempts,
    };
  }
  const budget = identityBudget(input.tenantId, postalCodeHash, dateOfBirthHash);
  const take = await takeAttempt(db, budget, now);
  if (!('taken' in take)) return { outcome: 'locked', consumer: null, lockedUntil: take.lockedUntil };
  const candidates = await consumersWithAnswers(db, input.tenantId, {
    last4SsnHash,
    postalCodeHash,
    dateOfBirthHash,
  });
  const [candidate] = candidates;
  if (candidate === undefined || candidates.length > 1) {
    const failure = await recordFailedAttempt(db, budget, now);
    const attempts: AttemptsLeft = failure.lockedNow
      ? { triesLeft: 0, lockedUntil: failure.lockedUntil }
      : { triesLeft: Math.max(0, budget.policy.threshold - take.taken), lockedUntil: null };
    if (candidates.length > 1) return { outcome: 'ambiguous', lockedNow: failure.lockedNow, attempts };
    return {
      outcome: 'mismatch',
      consumer: null,
      tokenLockedNow: failure.lockedNow,
      consumerLockedNow: false,
      attempts,
    };
  }
  await recordSucceededAttempt(db, budget, take.taken);
  return { outcome: 'verified', consumer: consumerOf(candidate) };
}
