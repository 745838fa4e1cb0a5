import {
  allVerificationFields,
  type SignInType,
  type VerificationField,
  verificationFieldsFor,
} from '@entry/domain';
import { and, eq, type SQLWrapper } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { consumers, identityTokens } from '../db/schema.ts';
import { withWrites } from '../db/sql.ts';
import {
  consumerLockPolicy,
  isLocked,
  type LockState,
  recordFailure,
  recordSuccess,
  settle,
  tokenLockPolicy,
} from './kba-locks.ts';
import { hashVerificationValue, verificationValueMatches } from './keyed-hash.ts';

/**
 * Knowledge-based verification of a consumer (DESIGN.md section 5). Lock counters live in the
 * rows of the consumer and the token and change only while both rows are locked (SELECT ... FOR
 * UPDATE, always the consumer first so two requests never wait on each other in a circle). So 20
 * parallel wrong answers count as at most 5 tries, a right answer during a lock is still refused,
 * and all of it holds across server instances sharing the database.
 */

export type VerificationAnswers = Partial<Record<VerificationField, string | null>>;

export interface VerifiedConsumer {
  id: number;
  consumerId: string;
  name: string;
  email: string | null;
}

/**
 * What a successful verification leads to, decided by the caller once the consumer is known: its
 * `writes` (the session it opens, its code and their audit row) run in the statement that records
 * the success, under the verification's row locks, so the verification and the session commit
 * together, in one commit. The plan comes back in the verified result.
 */
export interface SuccessPlan {
  writes: readonly SQLWrapper[];
}

export type PlanOnSuccess<Plan extends SuccessPlan> = (consumer: VerifiedConsumer) => Plan;

/** Every outcome of a verification but success. */
export type VerificationRefusal =
  | { outcome: 'locked'; consumer: VerifiedConsumer }
  | {
      outcome: 'mismatch';
      /** Null for a token-less verification that matched nobody. */
      consumer: VerifiedConsumer | null;
      tokenLockedNow: boolean;
      consumerLockedNow: boolean;
    }
  | { outcome: 'ambiguous' };

export type VerificationResult<Plan extends SuccessPlan> =
  | { outcome: 'verified'; consumer: VerifiedConsumer; plan: Plan }
  | VerificationRefusal;

const hashColumns = {
  last4Ssn: 'last4SsnHash',
  postalCode: 'postalCodeHash',
  dateOfBirth: 'dateOfBirthHash',
} as const satisfies Record<VerificationField, keyof typeof consumers.$inferSelect>;

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

interface LockColumns {
  failedCount: number;
  lockLevel: number;
  lockedUntil: Date | null;
  lastFailureAt: Date | null;
}

function lockStateOf(row: LockColumns): LockState {
  return {
    failedCount: row.failedCount,
    lockLevel: row.lockLevel,
    lockedUntil: row.lockedUntil,
    lastFailureAt: row.lastFailureAt,
  };
}

const lockColumnsOf = (state: LockState): LockColumns => ({ ...state });

function consumerOf(row: typeof consumers.$inferSelect): VerifiedConsumer {
  return { id: row.id, consumerId: row.consumerId, name: row.name, email: row.email };
}

export interface TokenVerificationInput<Plan extends SuccessPlan> {
  consumerRowId: number;
  tokenGuid: string;
  fields: readonly VerificationField[];
  answers: VerificationAnswers;
  pepper: string;
  now: Date;
  onSuccess: PlanOnSuccess<Plan>;
}

export async function verifyWithToken<Plan extends SuccessPlan>(
  db: Database,
  input: TokenVerificationInput<Plan>,
): Promise<VerificationResult<Plan>> {
  const { now } = input;
  return db.transaction(async (tx) => {
    // One read locks both rows, the consumer's first (rows are locked in FROM order), as the
    // token-less verification does, so parallel attempts on any instance queue one behind the
    // other. NO KEY UPDATE, as an UPDATE takes: it still excludes every other counting attempt but
    // not the key-share locks of a sign-in's inserts that reference these rows, which lock the
    // token first and so could otherwise deadlock with this read.
    const [locked] = await tx
      .select({
        consumer: consumers,
        token: {
          failedCount: identityTokens.failedCount,
          lockLevel: identityTokens.lockLevel,
          lockedUntil: identityTokens.lockedUntil,
          lastFailureAt: identityTokens.lastFailureAt,
        },
      })
      .from(consumers)
      .innerJoin(identityTokens, eq(identityTokens.consumerId, consumers.id))
      .where(and(eq(consumers.id, input.consumerRowId), eq(identityTokens.guid, input.tokenGuid)))
      .for('no key update');
    if (locked === undefined) {
      return { outcome: 'mismatch', consumer: null, tokenLockedNow: false, consumerLockedNow: false };
    }
    const { consumer: consumerRow, token: tokenRow } = locked;
    const consumer = consumerOf(consumerRow);
    const consumerState = settle(lockStateOf(consumerRow), now);
    const tokenState = settle(lockStateOf(tokenRow), now);
    if (isLocked(consumerState, now) || isLocked(tokenState, now)) return { outcome: 'locked', consumer };

    // Every field is compared, so the time taken does not reveal which one was wrong.
    const matches = input.fields.map((field) =>
      verificationValueMatches(
        input.pepper,
        field,
        input.answers[field] ?? '',
        consumerRow[hashColumns[field]],
      ),
    );
    // Both rows (and on success what it leads to) are written in one statement: a round trip
    // fewer inside the locks.
    const writeBoth = async (
      consumerColumns: LockColumns,
      tokenColumns: LockColumns & { lastUsedAt?: Date },
      alongside: readonly SQLWrapper[] = [],
    ) => {
      const consumerUpdate = tx.update(consumers).set(consumerColumns).where(eq(consumers.id, consumer.id));
      const tokenUpdate = tx
        .update(identityTokens)
        .set(tokenColumns)
        .where(eq(identityTokens.guid, input.tokenGuid));
      await tx.execute(withWrites([consumerUpdate, ...alongside], tokenUpdate));
    };
    if (matches.length > 0 && matches.every(Boolean)) {
      const plan = input.onSuccess(consumer);
      await writeBoth(
        lockColumnsOf(recordSuccess(consumerState, now)),
        { ...lockColumnsOf(recordSuccess(tokenState, now)), lastUsedAt: now },
        plan.writes,
      );
      return { outcome: 'verified', consumer, plan };
    }

    const tokenFailure = recordFailure(tokenState, tokenLockPolicy, now);
    const consumerFailure = recordFailure(consumerState, consumerLockPolicy, now);
    await writeBoth(lockColumnsOf(consumerFailure.state), lockColumnsOf(tokenFailure.state));
    return {
      outcome: 'mismatch',
      consumer,
      tokenLockedNow: tokenFailure.lockedNow,
      consumerLockedNow: consumerFailure.lockedNow,
    };
  });
}

export interface TokenlessVerificationInput<Plan extends SuccessPlan> {
  tenantId: number;
  answers: VerificationAnswers;
  pepper: string;
  now: Date;
  onSuccess: PlanOnSuccess<Plan>;
}

/**
 * A consumer who typed the domain has no token: all three values must match exactly one consumer
 * of the tenant. The keyed hashes are deterministic, so the database finds the match by equality.
 * A wrong answer here names no consumer, so only the per-address limit counts it.
 */
export async function verifyWithoutToken<Plan extends SuccessPlan>(
  db: Database,
  input: TokenlessVerificationInput<Plan>,
): Promise<VerificationResult<Plan>> {
  const hashes = allVerificationFields.map((field) =>
    hashVerificationValue(input.pepper, field, input.answers[field] ?? ''),
  );
  const [last4SsnHash, postalCodeHash, dateOfBirthHash] = hashes;
  if (!last4SsnHash || !postalCodeHash || !dateOfBirthHash) {
    return { outcome: 'mismatch', consumer: null, tokenLockedNow: false, consumerLockedNow: false };
  }
  const candidates = await db
    .select({ id: consumers.id })
    .from(consumers)
    .where(
      and(
        eq(consumers.tenantId, input.tenantId),
        eq(consumers.last4SsnHash, last4SsnHash),
        eq(consumers.postalCodeHash, postalCodeHash),
        eq(consumers.dateOfBirthHash, dateOfBirthHash),
      ),
    )
    .limit(2);
  if (candidates.length > 1) return { outcome: 'ambiguous' };
  const candidate = candidates[0];
  if (candidate === undefined) {
    return { outcome: 'mismatch', consumer: null, tokenLockedNow: false, consumerLockedNow: false };
  }
  const { now } = input;
  return db.transaction(async (tx) => {
    const [consumerRow] = await tx
      .select()
      .from(consumers)
      .where(eq(consumers.id, candidate.id))
      .for('no key update');
    if (consumerRow === undefined) {
      return { outcome: 'mismatch', consumer: null, tokenLockedNow: false, consumerLockedNow: false };
    }
    const consumer = consumerOf(consumerRow);
    const state = settle(lockStateOf(consumerRow), now);
    if (isLocked(state, now)) return { outcome: 'locked', consumer };
    const consumerUpdate = tx
      .update(consumers)
      .set(lockColumnsOf(recordSuccess(state, now)))
      .where(eq(consumers.id, consumer.id));
    const plan = input.onSuccess(consumer);
    await tx.execute(withWrites(plan.writes, consumerUpdate));
    return { outcome: 'verified', consumer, plan };
  });
}
