import {
  allVerificationFields,
  type SignInType,
  type VerificationField,
  verificationFieldsFor,
} from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { type Database, oncePerHandle } from '../db/index.ts';
import { consumers, identityTokens } from '../db/schema.ts';
import {
  executePart,
  isSerializationFailure,
  noRead,
  type StatementPart,
  sqlOf,
  unchangedWritesInTurns,
  withWrites,
} from '../db/sql.ts';
import {
  type Budget,
  recordFailedAttempt,
  recordSucceededAttempt,
  takeAttempt,
} from '../stores/attempt-budgets.ts';
import {
  consumerLockPolicy,
  isLocked,
  type LockState,
  lockStateOf,
  recordFailure,
  recordSuccess,
  sameLockState,
  settle,
  tokenLockPolicy,
} from './kba-locks.ts';
import { hashVerificationValue, verificationValueMatches } from './keyed-hash.ts';

/**
 * Knowledge-based verification of a consumer (DESIGN.md section 5). Lock counters live in the
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
}

/**
 * What a successful verification leads to, decided by the caller once the consumer is known: its
 * `writes` (the session it opens, its code and their audit row) run in the statement that records
 * the success, under the verification's row locks, so the verification and the session commit
 * together, in one commit. The plan comes back in the verified result.
 */
export interface SuccessPlan {
  writes: readonly StatementPart[];
}

export type PlanOnSuccess<Plan extends SuccessPlan> = (consumer: VerifiedConsumer) => Plan;

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
    }
  | { outcome: 'ambiguous'; lockedNow: boolean };

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

function consumerOf(row: typeof consumers.$inferSelect): VerifiedConsumer {
  return { id: row.id, consumerId: row.consumerId, name: row.name, email: row.email };
}

/** What a verification decides on: the consumer (with its answers' hashes and its locks) and the token's locks. */
export interface VerificationRow {
  consumer: typeof consumers.$inferSelect;
  token: LockState;
}

export interface TokenVerificationInput<Plan extends SuccessPlan> {
  /** The rows as the caller read them with the token, without a lock. */
  asRead: VerificationRow;
  tokenGuid: string;
  fields: readonly VerificationField[];
  answers: VerificationAnswers;
  pepper: string;
  now: Date;
  onSuccess: PlanOnSuccess<Plan>;
}

/** The verification's read under the locks: the same rows as `VerificationRow`. */
const verificationColumns = {
  consumer: consumers,
  token: {
    failedCount: identityTokens.failedCount,
    lockLevel: identityTokens.lockLevel,
    lockedUntil: identityTokens.lockedUntil,
    lastFailureAt: identityTokens.lastFailureAt,
  },
};

/**
 * Locks the consumer's row and then the token's (rows are locked in FROM order), as the token-less
 * verification does. NO KEY UPDATE, as an UPDATE takes: it still excludes every other counting
 * attempt but not the key-share locks of a sign-in's inserts that reference these rows, which lock
 * the token first and so could otherwise deadlock with this read.
 */
function lockBothRows(db: Database, input: TokenVerificationInput<SuccessPlan>) {
  return db
    .select(verificationColumns)
    .from(consumers)
    .innerJoin(identityTokens, eq(identityTokens.consumerId, consumers.id))
    .where(and(eq(consumers.id, input.asRead.consumer.id), eq(identityTokens.guid, input.tokenGuid)))
    .for('no key update');
}

/**
 * `lockBothRows` as a fixed text (the same order and strength) that finds the rows only while
 * their lock columns still hold the values they were read with: $1 the consumer, $2 the token,
 * $3-$6 the consumer's lock columns, $7-$10 the token's, as `lockValues` lists them.
 */
const unchangedRowsText = `SELECT c.id FROM consumers c JOIN identity_tokens t ON t.consumer_id = c.id
  WHERE c.id = $1::bigint AND t.guid = $2::uuid
    AND c.failed_count = $3::integer AND c.lock_level = $4::integer
    AND c.locked_until IS NOT DISTINCT FROM $5::timestamptz
    AND c.last_failure_at IS NOT DISTINCT FROM $6::timestamptz
    AND t.failed_count = $7::integer AND t.lock_level = $8::integer
    AND t.locked_until IS NOT DISTINCT FROM $9::timestamptz
    AND t.last_failure_at IS NOT DISTINCT FROM $10::timestamptz
  FOR NO KEY UPDATE`;

const lockValues = (state: LockState) => [
  state.failedCount,
  state.lockLevel,
  state.lockedUntil?.toISOString() ?? null,
  state.lastFailureAt?.toISOString() ?? null,
];

const setLockColumns =
  'failed_count = $1::integer, lock_level = $2::integer, locked_until = $3::timestamptz, ' +
  'last_failure_at = $4::timestamptz';
/** The guard of a write in `writesIfUnchanged`: it changes a row only once `locked` found it as read. */
const onceLocked = ' AND EXISTS (SELECT 1 FROM locked)';

/**
 * The consumer's new lock state, written only when it differs from the stored one: a success with
 * no failures to reset leaves the row as it is, rather than writing a copy of it on every sign-in.
 */
function consumerUpdates(
  consumer: { id: number } & LockState,
  state: LockState,
  guard = '',
): StatementPart[] {
  if (sameLockState(lockStateOf(consumer), state)) return [];
  return [
    {
      text: `UPDATE consumers SET ${setLockColumns} WHERE id = $5::bigint${guard}`,
      values: [...lockValues(state), consumer.id],
    },
  ];
}

function tokenUpdate(tokenGuid: string, state: LockState & { lastUsedAt?: Date }, guard = ''): StatementPart {
  return {
    text: `UPDATE identity_tokens SET ${setLockColumns}, last_used_at = COALESCE($5::timestamptz, last_used_at) WHERE guid = $6::uuid${guard}`,
    values: [...lockValues(state), state.lastUsedAt?.toISOString() ?? null, tokenGuid],
  };
}

/** The rows' new lock states (the token's with its last use on success) and what a success leads to. */
interface VerificationWrites {
  /** The consumer's row the decision rests on, to write only what changed in it. */
  consumerRow: VerificationRow['consumer'];
  consumer: LockState;
  token: LockState & { lastUsedAt?: Date };
  alongside: readonly StatementPart[];
}

/** The end of the longer of two locks in force at `now`. */
function laterOf(first: LockState, second: LockState, now: Date): Date | null {
  const ends = [first, second]
    .filter((state) => isLocked(state, now))
    .map((state) => state.lockedUntil?.getTime() ?? 0);
  return ends.length === 0 ? null : new Date(Math.max(...ends));
}

/** What the rows as read decide: the result, and what it writes (nothing while locked). */
function decide<Plan extends SuccessPlan>(
  row: VerificationRow | undefined,
  input: TokenVerificationInput<Plan>,
): { result: VerificationResult<Plan>; writes?: VerificationWrites } {
  const { now } = input;
  if (row === undefined) {
    return {
      result: { outcome: 'mismatch', consumer: null, tokenLockedNow: false, consumerLockedNow: false },
    };
  }
  const consumer = consumerOf(row.consumer);
  const consumerState = settle(lockStateOf(row.consumer), now);
  const tokenState = settle(lockStateOf(row.token), now);
  if (isLocked(consumerState, now) || isLocked(tokenState, now)) {
    return { result: { outcome: 'locked', consumer, lockedUntil: laterOf(consumerState, tokenState, now) } };
  }
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
    const plan = input.onSuccess(consumer);
    return {
      result: { outcome: 'verified', consumer, plan },
      writes: {
        consumerRow: row.consumer,
        consumer: recordSuccess(consumerState, now),
        token: { ...recordSuccess(tokenState, now), lastUsedAt: now },
        alongside: plan.writes,
      },
    };
  }
  const tokenFailure = recordFailure(tokenState, tokenLockPolicy, now);
  const consumerFailure = recordFailure(consumerState, consumerLockPolicy, now);
  return {
    result: {
      outcome: 'mismatch',
      consumer,
      tokenLockedNow: tokenFailure.lockedNow,
      consumerLockedNow: consumerFailure.lockedNow,
    },
    writes: {
      consumerRow: row.consumer,
      consumer: consumerFailure.state,
      token: tokenFailure.state,
      alongside: [],
    },
  };
}

/**
 * Each database's writer of attempts decided on rows as read: those of one turn share a statement,
 * four at most, since each number of attempts of each outcome's shape is a statement text of its
 * own, and the named statements of a connection are bounded (`maxNamedStatements`).
 */
const attemptWritesOf = oncePerHandle((db) => unchangedWritesInTurns(db, 4));

/**
 * The common case, one attempt at a time on a consumer: the rows are read without a lock, and the
 * outcome written in one statement that first locks them again as they were read, together with
 * the attempts on other consumers that were decided in the same turn. Undefined when another
 * attempt changed them in between: nothing was written.
 */
async function verifyAsRead<Plan extends SuccessPlan>(
  db: Database,
  input: TokenVerificationInput<Plan>,
): Promise<VerificationResult<Plan> | undefined> {
  const { asRead } = input;
  const { result, writes } = decide(asRead, input);
  if (writes === undefined) return result;
  const expected = {
    text: unchangedRowsText,
    values: [
      asRead.consumer.id,
      input.tokenGuid,
      ...lockValues(asRead.consumer),
      ...lockValues(asRead.token),
    ],
  };
  try {
    await attemptWritesOf(db)({
      expected,
      writes: [
        ...consumerUpdates(writes.consumerRow, writes.consumer, onceLocked),
        ...writes.alongside,
        tokenUpdate(input.tokenGuid, writes.token, onceLocked),
      ],
      rows: [`consumer:${asRead.consumer.id}`, `token:${input.tokenGuid}`],
    });
  } catch (error) {
    if (isSerializationFailure(error)) return undefined;
    throw error;
  }
  return result;
}

/**
 * Parallel attempts on one consumer: both rows locked from the read to the write, so the attempts
 * on every instance queue one behind the other.
 */
async function verifyLocked<Plan extends SuccessPlan>(
  db: Database,
  input: TokenVerificationInput<Plan>,
): Promise<VerificationResult<Plan>> {
  return db.transaction(async (tx) => {
    const [row] = await lockBothRows(tx, input);
    const { result, writes } = decide(row, input);
    if (writes === undefined) return result;
    // Both rows, and on success what it leads to, in one statement: a round trip fewer inside the locks.
    await tx.execute(
      sqlOf(
        withWrites(
          [...consumerUpdates(writes.consumerRow, writes.consumer), ...writes.alongside],
          tokenUpdate(input.tokenGuid, writes.token),
        ),
      ),
    );
    return result;
  });
}

export async function verifyWithToken<Plan extends SuccessPlan>(
  db: Database,
  input: TokenVerificationInput<Plan>,
): Promise<VerificationResult<Plan>> {
  return (await verifyAsRead(db, input)) ?? verifyLocked(db, input);
}

export interface TokenlessVerificationInput<Plan extends SuccessPlan> {
  tenantId: number;
  answers: VerificationAnswers;
  pepper: string;
  now: Date;
  onSuccess: PlanOnSuccess<Plan>;
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
 * not consulted: refusing only the right answers would tell them from the wrong ones.
 */
export async function verifyWithoutToken<Plan extends SuccessPlan>(
  db: Database,
  input: TokenlessVerificationInput<Plan>,
): Promise<VerificationResult<Plan>> {
  const [last4SsnHash, postalCodeHash, dateOfBirthHash] = allVerificationFields.map((field) =>
    hashVerificationValue(input.pepper, field, input.answers[field] ?? ''),
  );
  const { now } = input;
  if (!last4SsnHash || !postalCodeHash || !dateOfBirthHash) {
    return { outcome: 'mismatch', consumer: null, tokenLockedNow: false, consumerLockedNow: false };
  }
  const budget = identityBudget(input.tenantId, postalCodeHash, dateOfBirthHash);
  const take = await takeAttempt(db, budget, now);
  if (!('taken' in take)) return { outcome: 'locked', consumer: null, lockedUntil: take.lockedUntil };
  const candidates = await db
    .select()
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
  const [candidate] = candidates;
  if (candidate === undefined || candidates.length > 1) {
    const failure = await recordFailedAttempt(db, budget, now);
    if (candidates.length > 1) return { outcome: 'ambiguous', lockedNow: failure.lockedNow };
    return {
      outcome: 'mismatch',
      consumer: null,
      tokenLockedNow: failure.lockedNow,
      consumerLockedNow: false,
    };
  }
  await recordSucceededAttempt(db, budget, take.taken);
  const consumer = consumerOf(candidate);
  const plan = input.onSuccess(consumer);
  if (plan.writes.length > 0) await executePart(db, withWrites(plan.writes, noRead));
  return { outcome: 'verified', consumer, plan };
}
