import type { StaffKind } from '@entry/domain';
import { type LockPolicy, type LockState, lockedAfter, lockStateOf, quietResetMs } from '@entry/domain';
import { and, eq, gt, isNull, lte, or, type SQL, sql } from 'drizzle-orm';
import { type Database, oncePerHandle } from '../db/index.ts';
import { passwordResetTokens, staffUsers } from '../db/schema.ts';
import {
  dateOrNull,
  executePart,
  isSerializationFailure,
  sqlOf,
  sqlPart,
  unchangedWritesBatchedByTurn,
} from '../db/sql.ts';
import type { NewAuditRow } from './audit-log.ts';
import { type RowWrites, statementsOfRows } from './row-writes.ts';
import { revokeStaffUserSessions } from './sessions.ts';

/** Staff users and their reset links: every statement on `staff_users` and `password_reset_tokens`. */

export type StaffUser = typeof staffUsers.$inferSelect;

export type NewStaffUserRow = Pick<
  typeof staffUsers.$inferInsert,
  | 'kind'
  | 'tenantId'
  | 'username'
  | 'email'
  | 'displayName'
  | 'roleId'
  | 'manager'
  | 'invitationPending'
  | 'passwordHash'
  | 'passwordChangedAt'
  | 'createdAt'
>;

/** A reset link as stored: only its hash. */
export interface StoredResetToken {
  hash: string;
  createdAt: Date;
  expiresAt: Date;
}

/** A `staff_users` row as a hand-written statement returns it. */
interface StaffUserRow {
  id: number | string;
  kind: StaffKind;
  tenant_id: number | null;
  username: string;
  email: string;
  display_name: string;
  role_id: number;
  password_hash: string;
  password_changed_at: Date | string;
  failed_count: number;
  locked_until: Date | string | null;
  lock_level: number;
  last_failure_at: Date | string | null;
  second_factor_failed_count: number;
  second_factor_locked_until: Date | string | null;
  second_factor_lock_level: number;
  second_factor_last_failure_at: Date | string | null;
  disabled: boolean;
  manager: boolean;
  invitation_pending: boolean;
  created_at: Date | string;
}

function toStaffUser(row: StaffUserRow): StaffUser {
  return {
    id: Number(row.id),
    kind: row.kind,
    tenantId: row.tenant_id,
    username: row.username,
    email: row.email,
    displayName: row.display_name,
    roleId: row.role_id,
    manager: row.manager,
    invitationPending: row.invitation_pending,
    passwordHash: row.password_hash,
    passwordChangedAt: new Date(row.password_changed_at),
    failedCount: row.failed_count,
    lockedUntil: dateOrNull(row.locked_until),
    lockLevel: row.lock_level,
    lastFailureAt: dateOrNull(row.last_failure_at),
    secondFactorFailedCount: row.second_factor_failed_count,
    secondFactorLockedUntil: dateOrNull(row.second_factor_locked_until),
    secondFactorLockLevel: row.second_factor_lock_level,
    secondFactorLastFailureAt: dateOrNull(row.second_factor_last_failure_at),
    disabled: row.disabled,
    createdAt: new Date(row.created_at),
  };
}

/** The user as stored, by kind and (normalised) username: every sign-in and reset request reads it. */
export async function findStaffUser(
  db: Database,
  kind: StaffKind,
  username: string,
): Promise<StaffUser | undefined> {
  const [row] = await executePart<StaffUserRow>(
    db,
    sqlPart`SELECT * FROM staff_users WHERE kind = ${kind}::text AND username = ${username}::text`,
  );
  return row === undefined ? undefined : toStaffUser(row);
}

const notLockedAt = (now: Date) => or(isNull(staffUsers.lockedUntil), lte(staffUsers.lockedUntil, now));

/**
 * Pays for one password attempt before the password is looked at: counts it in the user's
 * failures while the account is enabled, unlocked and its budget not spent, in one conditional
 * update that also reads the user. After a quiet period the counts start over first, and the
 * settled row no longer shows a last failure, so attempts reserved alongside count on from it.
 */
export async function reservePasswordTry(
  db: Database,
  user: { kind: StaffKind; username: string },
  policy: LockPolicy,
  now: Date,
): Promise<StaffUser | undefined> {
  const quietSince = new Date(now.getTime() - quietResetMs).toISOString();
  const quiet = sqlPart`(last_failure_at IS NOT NULL AND last_failure_at <= ${quietSince}::timestamptz)`;
  const [row] = await executePart<StaffUserRow>(
    db,
    sqlPart`UPDATE staff_users SET
      failed_count = CASE WHEN ${quiet} THEN 1 ELSE failed_count + 1 END,
      lock_level = CASE WHEN ${quiet} THEN 0 ELSE lock_level END,
      last_failure_at = CASE WHEN ${quiet} THEN NULL ELSE last_failure_at END
    WHERE kind = ${user.kind}::text AND username = ${user.username}::text AND NOT disabled
      AND (locked_until IS NULL OR locked_until <= ${now.toISOString()}::timestamptz)
      AND (${quiet} OR failed_count < ${policy.threshold}::integer)
    RETURNING *`,
  );
  return row === undefined ? undefined : toStaffUser(row);
}

/** The row a reserved attempt was checked against, while the user is enabled and has that password. */
const asChecked = (reserved: StaffUser) =>
  and(
    eq(staffUsers.id, reserved.id),
    eq(staffUsers.disabled, false),
    eq(staffUsers.passwordHash, reserved.passwordHash),
  );

/**
 * What a wrong try did to its budget: whether it was the one that reached the threshold, until when
 * the lock lasts, and whether this try set it (a lock set meanwhile, or a changed row, is not this try's).
 */
export type WrongTry = { locks: false } | { locks: true; lockedUntil: Date | null; lockedNow: boolean };

/**
 * A wrong password keeps its reserved place in the count; the one that reached the threshold locks
 * the account, unless a lock was set meanwhile or the password changed (which proves nothing).
 * Answers until when it locked, or null.
 */
export async function recordWrongPasswordTry(
  db: Database,
  reserved: StaffUser,
  policy: LockPolicy,
  now: Date,
): Promise<WrongTry> {
  const stillOpen = and(asChecked(reserved), notLockedAt(now));
  if (reserved.failedCount < policy.threshold) {
    await db.update(staffUsers).set({ lastFailureAt: now }).where(stillOpen);
    return { locks: false };
  }
  const locked = lockedAfter(lockStateOf(reserved), now);
  const [lockedNow] = await db
    .update(staffUsers)
    .set(locked)
    .where(and(stillOpen, eq(staffUsers.lockLevel, reserved.lockLevel)))
    .returning({ id: staffUsers.id });
  return { locks: true, lockedUntil: locked.lockedUntil, lockedNow: lockedNow !== undefined };
}

/** Each database's writer of right passwords: those of one turn share a statement when they are of different users (decision record 018). */
const rightPasswordWritesOf = oncePerHandle((db) => unchangedWritesBatchedByTurn(db, 4));

/**
 * A right password ends the run of failures only when no attempt was reserved after it; otherwise
 * it gives back its own place alone, so attempts still in flight stay paid for. A lock is never
 * touched: while locked the count stays at nought. `writes` (the session it opens, its audit row)
 * commit in the same statement; nothing does, answered false, when the user was disabled or the
 * password changed during the check.
 */
export async function settlePasswordTry(
  db: Database,
  reserved: StaffUser,
  writes: RowWrites = {},
): Promise<boolean> {
  try {
    await rightPasswordWritesOf(db)({
      expected: sqlPart`SELECT id FROM staff_users
        WHERE id = ${reserved.id}::bigint AND NOT disabled AND password_hash = ${reserved.passwordHash}::text
        FOR NO KEY UPDATE`,
      changes: [
        sqlPart`UPDATE staff_users SET failed_count = CASE WHEN failed_count = ${reserved.failedCount}::integer
          THEN 0 ELSE GREATEST(failed_count - 1, 0) END
        WHERE id = ${reserved.id}::bigint`,
      ],
      additions: statementsOfRows(writes),
      rows: [`staff-user:${reserved.id}`],
    });
    return true;
  } catch (error) {
    if (isSerializationFailure(error)) return false;
    throw error;
  }
}

/** An attempt that was paid for but never judged (its client left) gives its place back. */
export async function giveBackPasswordTry(db: Database, reserved: StaffUser): Promise<void> {
  await db
    .update(staffUsers)
    .set({ failedCount: sql`GREATEST(${staffUsers.failedCount} - 1, 0)` })
    .where(eq(staffUsers.id, reserved.id));
}

/** What a new password ended: the user's unused reset links and their other sessions. */
export interface PasswordChangeEnded {
  voidedResetLinks: number;
  endedSessionIds: string[];
}

/**
 * Sets a new password on `user`'s row, with `counts` for its lock columns, and ends what the old
 * password gave: the user's unused reset links and sessions but `keptSessionId`. With
 * `whileAsChecked`, only while the row still has the password the check was made against.
 * `audited` gives the audit rows of what ended; all of it commits together, or nothing when the
 * row is no longer found (answered undefined).
 */
export async function setPassword(
  db: Database,
  change: {
    user: StaffUser;
    passwordHash: string;
    now: Date;
    counts: Partial<LockState>;
    whileAsChecked: boolean;
    keptSessionId: string | undefined;
  },
  audited: (ended: PasswordChangeEnded) => NewAuditRow[],
): Promise<PasswordChangeEnded | undefined> {
  const { user, now } = change;
  const found: SQL | undefined = change.whileAsChecked ? asChecked(user) : eq(staffUsers.id, user.id);
  return db.transaction(async (tx) => {
    const [changed] = await tx
      .update(staffUsers)
      .set({
        passwordHash: change.passwordHash,
        passwordChangedAt: now,
        invitationPending: false,
        ...change.counts,
      })
      .where(found)
      .returning({ id: staffUsers.id });
    if (changed === undefined) return undefined;
    const voided = await tx
      .update(passwordResetTokens)
      .set({ usedAt: now })
      .where(and(eq(passwordResetTokens.userId, user.id), isNull(passwordResetTokens.usedAt)))
      .returning({ hash: passwordResetTokens.hash });
    const endedSessionIds = await revokeStaffUserSessions(tx, user.id, {
      reason: 'password-changed',
      now,
      keptSessionId: change.keptSessionId,
    });
    const outcome = { voidedResetLinks: voided.length, endedSessionIds };
    for (const insert of statementsOfRows({ auditRows: audited(outcome) })) await tx.execute(sqlOf(insert));
    return outcome;
  });
}

export async function insertResetToken(db: Database, userId: number, token: StoredResetToken): Promise<void> {
  await db.insert(passwordResetTokens).values({ ...token, userId });
}

/** The reset link of `hash` and its user, if the user is of `kind`. */
export async function findResetToken(
  db: Database,
  hash: string,
  kind: StaffKind,
): Promise<{ token: typeof passwordResetTokens.$inferSelect; user: StaffUser } | undefined> {
  const [found] = await db
    .select({ token: passwordResetTokens, user: staffUsers })
    .from(passwordResetTokens)
    .innerJoin(staffUsers, eq(staffUsers.id, passwordResetTokens.userId))
    .where(and(eq(passwordResetTokens.hash, hash), eq(staffUsers.kind, kind)));
  return found;
}

/** Uses a reset link once, even under parallel requests: only one update can claim it. */
export async function claimResetToken(db: Database, hash: string, now: Date): Promise<boolean> {
  const [claimed] = await db
    .update(passwordResetTokens)
    .set({ usedAt: now })
    .where(
      and(
        eq(passwordResetTokens.hash, hash),
        isNull(passwordResetTokens.usedAt),
        gt(passwordResetTokens.expiresAt, now),
      ),
    )
    .returning({ hash: passwordResetTokens.hash });
  return claimed !== undefined;
}

export async function findStaffUserById(db: Database, userId: number): Promise<StaffUser | undefined> {
  const [user] = await db.select().from(staffUsers).where(eq(staffUsers.id, userId));
  return user;
}
