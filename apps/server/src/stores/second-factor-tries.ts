import { type LockPolicy, type LockState, lockedAfter, quietResetMs } from '@entry/domain';
import { and, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { staffUsers } from '../db/schema.ts';
import { sqlOf } from '../db/sql.ts';
import { type RowWrites, statementsOfRows } from './row-writes.ts';
import type { StaffUser, WrongTry } from './staff-users.ts';

/**
 * The second-factor columns of `staff_users`: a budget of tries apart from the password's, paid
 * before a code or passkey answer is judged. A right password never resets it; only a completed
 * second step gives places back, and the quiet period or the lock's end starts it over.
 */

const secondFactorLockOf = (user: StaffUser): LockState => ({
  failedCount: user.secondFactorFailedCount,
  lockLevel: user.secondFactorLockLevel,
  lockedUntil: user.secondFactorLockedUntil,
  lastFailureAt: user.secondFactorLastFailureAt,
});

const secondFactorNotLockedAt = (now: Date) =>
  or(isNull(staffUsers.secondFactorLockedUntil), lte(staffUsers.secondFactorLockedUntil, now));

/**
 * Pays for one try from the enabled user's second-factor budget while it is unlocked and not
 * spent, in one conditional update that also reads the user; undefined when it is not to be had.
 */
export async function reserveSecondFactorTry(
  db: Database,
  userId: number,
  policy: LockPolicy,
  now: Date,
): Promise<StaffUser | undefined> {
  const quietSince = new Date(now.getTime() - quietResetMs).toISOString();
  const quiet = sql`(${staffUsers.secondFactorLastFailureAt} IS NOT NULL AND ${staffUsers.secondFactorLastFailureAt} <= ${quietSince}::timestamptz)`;
  const [reserved] = await db
    .update(staffUsers)
    .set({
      secondFactorFailedCount: sql`CASE WHEN ${quiet} THEN 1 ELSE ${staffUsers.secondFactorFailedCount} + 1 END`,
      secondFactorLockLevel: sql`CASE WHEN ${quiet} THEN 0 ELSE ${staffUsers.secondFactorLockLevel} END`,
      secondFactorLastFailureAt: sql`CASE WHEN ${quiet} THEN NULL ELSE ${staffUsers.secondFactorLastFailureAt} END`,
    })
    .where(
      and(
        eq(staffUsers.id, userId),
        eq(staffUsers.disabled, false),
        secondFactorNotLockedAt(now),
        or(quiet, lt(staffUsers.secondFactorFailedCount, policy.threshold)),
      ),
    )
    .returning();
  return reserved;
}

/**
 * A wrong try keeps its place in the count; the one that reached the threshold locks second-factor
 * sign-in, unless a lock was set meanwhile.
 */
export async function recordWrongSecondFactorTry(
  db: Database,
  reserved: StaffUser,
  policy: LockPolicy,
  now: Date,
): Promise<WrongTry> {
  const stillOpen = and(eq(staffUsers.id, reserved.id), secondFactorNotLockedAt(now));
  if (reserved.secondFactorFailedCount < policy.threshold) {
    await db.update(staffUsers).set({ secondFactorLastFailureAt: now }).where(stillOpen);
    return { locks: false };
  }
  const locked = lockedAfter(secondFactorLockOf(reserved), now);
  const [lockedNow] = await db
    .update(staffUsers)
    .set({
      secondFactorFailedCount: locked.failedCount,
      secondFactorLockLevel: locked.lockLevel,
      secondFactorLockedUntil: locked.lockedUntil,
      secondFactorLastFailureAt: locked.lastFailureAt,
    })
    .where(and(stillOpen, eq(staffUsers.secondFactorLockLevel, reserved.secondFactorLockLevel)))
    .returning({ id: staffUsers.id });
  return { locks: true, lockedUntil: locked.lockedUntil, lockedNow: lockedNow !== undefined };
}

/**
 * A right try ends the run of failures when no try was paid for after it, otherwise gives back its
 * own place alone. `writes` commit with it; nothing does, answered false, when the user was
 * disabled or the password changed during the try.
 */
export async function settleSecondFactorTry(
  db: Database,
  reserved: StaffUser,
  writes: RowWrites = {},
): Promise<boolean> {
  const statements = statementsOfRows(writes);
  const settle = (tx: Pick<Database, 'update'>) =>
    tx
      .update(staffUsers)
      .set({
        secondFactorFailedCount: sql`CASE WHEN ${staffUsers.secondFactorFailedCount} = ${reserved.secondFactorFailedCount} THEN 0 ELSE GREATEST(${staffUsers.secondFactorFailedCount} - 1, 0) END`,
      })
      .where(
        and(
          eq(staffUsers.id, reserved.id),
          eq(staffUsers.disabled, false),
          eq(staffUsers.passwordHash, reserved.passwordHash),
        ),
      )
      .returning({ id: staffUsers.id });
  // Alone, the update is its own transaction: one round trip instead of three.
  if (statements.length === 0) return (await settle(db)).length > 0;
  return db.transaction(async (tx) => {
    const [settled] = await settle(tx);
    if (settled === undefined) return false;
    for (const write of statements) await tx.execute(sqlOf(write));
    return true;
  });
}

/** A try that was paid for but never judged gives its place back. */
export async function giveBackSecondFactorTry(db: Database, reserved: StaffUser): Promise<void> {
  await db
    .update(staffUsers)
    .set({ secondFactorFailedCount: sql`GREATEST(${staffUsers.secondFactorFailedCount} - 1, 0)` })
    .where(eq(staffUsers.id, reserved.id));
}
