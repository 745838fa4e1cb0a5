import type { LockState } from '@entry/domain';
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
import { forgetIdentityToken } from './read-cache.ts';

/**
 * The rows a knowledge-based verification decides on and writes: the consumer's (its answers'
 * hashes and its lock columns) and its token's lock columns. Both rows are locked consumer first,
 * so two attempts never wait on each other in a circle.
 */

export type ConsumerRow = typeof consumers.$inferSelect;

/** What a verification decides on: the consumer (with its answers' hashes and its locks) and the token's locks. */
export interface VerificationRow {
  consumer: ConsumerRow;
  token: LockState;
}

/** What one attempt writes: the rows' new lock states, the token's last use on success, and what success leads to. */
export interface AttemptWrites {
  consumerId: number;
  token: TokenKey;
  /** Null when the consumer's lock state stays as it is: its row is then not written. */
  consumerLocks: LockState | null;
  tokenLocks: LockState & { lastUsedAt?: Date };
  alongside: readonly StatementPart[];
}

/** A token as the read cache knows it, so that a write can forget it. */
export interface TokenKey {
  guid: string;
  shortId: string | null;
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
 * Locks the consumer's row and then the token's (rows are locked in FROM order). NO KEY UPDATE, as
 * an UPDATE takes: it still excludes every other counting attempt but not the key-share locks of a
 * sign-in's inserts that reference these rows, which lock the token first and could deadlock.
 */
function lockBothRows(db: Database, consumerId: number, tokenGuid: string) {
  return db
    .select(verificationColumns)
    .from(consumers)
    .innerJoin(identityTokens, eq(identityTokens.consumerId, consumers.id))
    .where(and(eq(consumers.id, consumerId), eq(identityTokens.guid, tokenGuid)))
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

function consumerUpdates(writes: AttemptWrites, guard = ''): StatementPart[] {
  if (writes.consumerLocks === null) return [];
  return [
    {
      text: `UPDATE consumers SET ${setLockColumns} WHERE id = $5::bigint${guard}`,
      values: [...lockValues(writes.consumerLocks), writes.consumerId],
    },
  ];
}

function tokenUpdate(writes: AttemptWrites, guard = ''): StatementPart {
  return {
    text: `UPDATE identity_tokens SET ${setLockColumns}, last_used_at = COALESCE($5::timestamptz, last_used_at) WHERE guid = $6::uuid${guard}`,
    values: [
      ...lockValues(writes.tokenLocks),
      writes.tokenLocks.lastUsedAt?.toISOString() ?? null,
      writes.token.guid,
    ],
  };
}

/**
 * Each database's writer of attempts decided on rows as read: those of one turn share a statement,
 * four at most, since each number of attempts of each outcome's shape is a statement text of its
 * own, and the named statements of a connection are bounded (`maxNamedStatements`).
 */
const attemptWritesOf = oncePerHandle((db) => unchangedWritesInTurns(db, 4));

/**
 * Writes an attempt decided on `asRead`, read without a lock, in one statement that first locks
 * the rows again as they were read (with the attempts on other consumers of the same turn, decision
 * record 018). False when another attempt changed them in between: nothing was written.
 */
export async function writeAttemptIfUnchanged(
  db: Database,
  asRead: VerificationRow,
  writes: AttemptWrites,
): Promise<boolean> {
  const expected = {
    text: unchangedRowsText,
    values: [
      writes.consumerId,
      writes.token.guid,
      ...lockValues(asRead.consumer),
      ...lockValues(asRead.token),
    ],
  };
  try {
    await attemptWritesOf(db)({
      expected,
      writes: [...consumerUpdates(writes, onceLocked), ...writes.alongside, tokenUpdate(writes, onceLocked)],
      rows: [`consumer:${writes.consumerId}`, `token:${writes.token.guid}`],
    });
  } catch (error) {
    if (isSerializationFailure(error)) return false;
    throw error;
  }
  forgetIdentityToken(db, writes.token);
  return true;
}

/**
 * Both rows locked from the read to the write, so parallel attempts on one consumer on every
 * instance queue one behind the other: `judge` decides on the rows as locked, and its writes
 * commit before the locks are let go.
 */
export async function judgeUnderLock<Result>(
  db: Database,
  ids: { consumerId: number; token: TokenKey },
  judge: (row: VerificationRow | undefined) => { result: Result; writes?: AttemptWrites },
): Promise<Result> {
  const { result, written } = await db.transaction(async (tx) => {
    const [row] = await lockBothRows(tx, ids.consumerId, ids.token.guid);
    const { result, writes } = judge(row);
    if (writes === undefined) return { result, written: false };
    // Both rows, and on success what it leads to, in one statement: a round trip fewer inside the locks.
    await tx.execute(
      sqlOf(withWrites([...consumerUpdates(writes), ...writes.alongside], tokenUpdate(writes))),
    );
    return { result, written: true };
  });
  if (written) forgetIdentityToken(db, ids.token);
  return result;
}

/** The tenant's consumers whose answers' hashes are these: two at most, enough to tell one from many. */
export function consumersWithAnswers(
  db: Database,
  tenantId: number,
  hashes: { last4SsnHash: string; postalCodeHash: string; dateOfBirthHash: string },
): Promise<ConsumerRow[]> {
  return db
    .select()
    .from(consumers)
    .where(
      and(
        eq(consumers.tenantId, tenantId),
        eq(consumers.last4SsnHash, hashes.last4SsnHash),
        eq(consumers.postalCodeHash, hashes.postalCodeHash),
        eq(consumers.dateOfBirthHash, hashes.dateOfBirthHash),
      ),
    )
    .limit(2);
}

/** What a token-less verification's success leads to, committed together in one statement. */
export async function writeTokenlessSuccess(db: Database, writes: readonly StatementPart[]): Promise<void> {
  if (writes.length > 0) await executePart(db, withWrites(writes, noRead));
}
