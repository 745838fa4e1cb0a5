import type { LockState } from '@entry/domain';
import { and, eq } from 'drizzle-orm';
import { type Database, oncePerHandle } from '../db/index.ts';
import { consumers, identityTokens } from '../db/schema.ts';
import {
  executePart,
  fixedText,
  isSerializationFailure,
  type StatementPart,
  sqlOf,
  sqlPart,
  unchangedWritesBatchedByTurn,
  writesTogether,
} from '../db/sql.ts';
import { forgetIdentityToken } from './identity-tokens.ts';
import { type RowWrites, statementsOfRows } from './row-writes.ts';

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
  alongside: RowWrites;
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
 * their lock columns still hold the values they were read with.
 */
function unchangedRows(consumerId: number, token: TokenKey, asRead: VerificationRow): StatementPart {
  return sqlPart`SELECT c.id FROM consumers c JOIN identity_tokens t ON t.consumer_id = c.id
  WHERE c.id = ${consumerId}::bigint AND t.guid = ${token.guid}::uuid
    AND ${lockColumnsAre('c', asRead.consumer)} AND ${lockColumnsAre('t', asRead.token)}
  FOR NO KEY UPDATE`;
}

const timestamp = (at: Date | null) => at?.toISOString() ?? null;

function lockColumnsAre(table: 'c' | 't', state: LockState): StatementPart {
  const row = fixedText(table);
  return sqlPart`${row}.failed_count = ${state.failedCount}::integer AND ${row}.lock_level = ${state.lockLevel}::integer
    AND ${row}.locked_until IS NOT DISTINCT FROM ${timestamp(state.lockedUntil)}::timestamptz
    AND ${row}.last_failure_at IS NOT DISTINCT FROM ${timestamp(state.lastFailureAt)}::timestamptz`;
}

const setLockColumns = (state: LockState) =>
  sqlPart`failed_count = ${state.failedCount}::integer, lock_level = ${state.lockLevel}::integer,
    locked_until = ${timestamp(state.lockedUntil)}::timestamptz, last_failure_at = ${timestamp(state.lastFailureAt)}::timestamptz`;

/** The updates of the two rows' lock columns (the consumer's only when it changes), each ending in its WHERE clause. */
function lockUpdates(writes: AttemptWrites): StatementPart[] {
  const { consumerLocks, tokenLocks } = writes;
  const token = sqlPart`UPDATE identity_tokens SET ${setLockColumns(tokenLocks)},
    last_used_at = COALESCE(${timestamp(tokenLocks.lastUsedAt ?? null)}::timestamptz, last_used_at)
    WHERE guid = ${writes.token.guid}::uuid`;
  if (consumerLocks === null) return [token];
  return [
    sqlPart`UPDATE consumers SET ${setLockColumns(consumerLocks)} WHERE id = ${writes.consumerId}::bigint`,
    token,
  ];
}

/**
 * Each database's writer of attempts decided on rows as read: those of one turn share a statement,
 * four at most, since each number of attempts of each outcome's shape is a statement text of its
 * own, and the named statements of a connection are bounded (`maxNamedStatements`).
 */
const attemptWritesOf = oncePerHandle((db) => unchangedWritesBatchedByTurn(db, 4));

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
  try {
    await attemptWritesOf(db)({
      expected: unchangedRows(writes.consumerId, writes.token, asRead),
      changes: lockUpdates(writes),
      additions: statementsOfRows(writes.alongside),
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
    await tx.execute(sqlOf(writesTogether([...lockUpdates(writes), ...statementsOfRows(writes.alongside)])));
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
export async function writeTokenlessSuccess(db: Database, writes: RowWrites): Promise<void> {
  const statements = statementsOfRows(writes);
  if (statements.length > 0) await executePart(db, writesTogether(statements));
}
