import { and, count, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { staffPasskeys, staffRecoveryCodes, staffTotp, staffUsers } from '../db/schema.ts';
import { executeRows } from '../db/sql.ts';
import { revokeStaffUserSessions } from './sessions.ts';
import { listPasskeys, type StaffPasskey } from './staff-passkeys.ts';

/**
 * Staff users' second factors: every statement on `staff_totp` and `staff_recovery_codes`, the
 * reads of `staff_passkeys` that tell whether a user has a factor, and the removal of any factor;
 * the rest of the passkeys' statements are `staff-passkeys.ts`'s.
 */

export type StaffTotp = typeof staffTotp.$inferSelect;

/** A confirmed authenticator app or any passkey: what makes a password sign-in ask for a second step. */
const confirmedTotpOf = (userId: number) =>
  sql`EXISTS (SELECT 1 FROM ${staffTotp} WHERE ${staffTotp.staffUserId} = ${userId} AND ${staffTotp.confirmedAt} IS NOT NULL)`;
const passkeyOf = (userId: number) =>
  sql`EXISTS (SELECT 1 FROM ${staffPasskeys} WHERE ${staffPasskeys.staffUserId} = ${userId})`;

export async function hasSecondFactor(db: Database, userId: number): Promise<boolean> {
  const [row] = await executeRows<{ found: boolean }>(
    db,
    sql`SELECT (${confirmedTotpOf(userId)} OR ${passkeyOf(userId)}) AS found`,
  );
  return row?.found === true;
}

/** What a user has enrolled, as the security page lists it. */
export interface FactorsOf {
  totp: StaffTotp | undefined;
  passkeys: StaffPasskey[];
  recoveryCodesLeft: number;
}

export async function findFactors(db: Database, userId: number): Promise<FactorsOf> {
  const [totpRows, passkeys, [codes]] = await Promise.all([
    db.select().from(staffTotp).where(eq(staffTotp.staffUserId, userId)),
    listPasskeys(db, userId),
    db
      .select({ left: count() })
      .from(staffRecoveryCodes)
      .where(and(eq(staffRecoveryCodes.staffUserId, userId), isNull(staffRecoveryCodes.usedAt))),
  ]);
  return { totp: totpRows[0], passkeys, recoveryCodesLeft: codes?.left ?? 0 };
}

export async function findTotp(db: Database, userId: number): Promise<StaffTotp | undefined> {
  const [row] = await db.select().from(staffTotp).where(eq(staffTotp.staffUserId, userId));
  return row;
}

/**
 * Starts an authenticator app, replacing one not yet confirmed; answers false, writing nothing,
 * when a confirmed one exists.
 */
export async function startTotp(
  db: Database,
  userId: number,
  secretSealed: string,
  now: Date,
): Promise<boolean> {
  const written = await db
    .insert(staffTotp)
    .values({ staffUserId: userId, secretSealed, createdAt: now })
    .onConflictDoUpdate({
      target: staffTotp.staffUserId,
      set: { secretSealed, createdAt: now, lastUsedStep: null },
      setWhere: isNull(staffTotp.confirmedAt),
    })
    .returning({ id: staffTotp.staffUserId });
  return written.length > 0;
}

/** Adds a confirmed authenticator app where the user has none (the demo admin's). */
export async function addConfirmedTotp(
  db: Database,
  userId: number,
  secretSealed: string,
  now: Date,
): Promise<void> {
  await db
    .insert(staffTotp)
    .values({ staffUserId: userId, secretSealed, createdAt: now, confirmedAt: now })
    .onConflictDoNothing();
}

/**
 * Accepts a code's time step once: only while no later or equal step was accepted, so a replayed
 * code (or two racing tries of one code) is taken once. `confirming` confirms the app whose secret
 * was checked (never one that replaced it meanwhile); otherwise the app must be confirmed.
 */
export async function claimTotpStep(
  db: Database,
  totp: StaffTotp,
  step: number,
  confirming: { at: Date } | undefined,
): Promise<boolean> {
  const claimed = await db
    .update(staffTotp)
    .set({
      lastUsedStep: step,
      ...(confirming === undefined ? {} : { confirmedAt: confirming.at }),
    })
    .where(
      and(
        eq(staffTotp.staffUserId, totp.staffUserId),
        eq(staffTotp.secretSealed, totp.secretSealed),
        confirming === undefined ? isNotNull(staffTotp.confirmedAt) : isNull(staffTotp.confirmedAt),
        or(isNull(staffTotp.lastUsedStep), lt(staffTotp.lastUsedStep, step)),
      ),
    )
    .returning({ id: staffTotp.staffUserId });
  return claimed.length > 0;
}

/** A factor a user removes: the authenticator app, or one passkey. */
export type RemovedFactor = { method: 'totp' } | { method: 'passkey'; credentialId: string };

export type FactorRemoval = 'removed' | 'not-found' | 'last-factor';

/** Thrown inside a removal's transaction to undo it: the factor removed was the last one to keep. */
class LastFactorKept extends Error {}

/**
 * Removes one of the user's factors. When none is left, `keepOneFactor` undoes the removal;
 * otherwise the recovery codes go with the last factor: they stand in for a factor, never alone.
 */
export async function removeFactor(
  db: Database,
  userId: number,
  factor: RemovedFactor,
  keepOneFactor: boolean,
): Promise<FactorRemoval> {
  const removed =
    factor.method === 'totp'
      ? { table: staffTotp, where: eq(staffTotp.staffUserId, userId) }
      : {
          table: staffPasskeys,
          where: and(
            eq(staffPasskeys.staffUserId, userId),
            eq(staffPasskeys.credentialId, factor.credentialId),
          ),
        };
  try {
    return await db.transaction(async (tx) => {
      // The user's row orders removals that run at the same time, so two of them never both see
      // the other factor and leave none.
      await tx
        .select({ id: staffUsers.id })
        .from(staffUsers)
        .where(eq(staffUsers.id, userId))
        .for('no key update');
      const deleted = await tx
        .delete(removed.table)
        .where(removed.where)
        .returning({ userId: removed.table.staffUserId });
      if (deleted.length === 0) return 'not-found';
      if (!(await hasSecondFactor(tx, userId))) {
        if (keepOneFactor) throw new LastFactorKept();
        await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.staffUserId, userId));
      }
      return 'removed';
    });
  } catch (error) {
    if (error instanceof LastFactorKept) return 'last-factor';
    throw error;
  }
}

/** Replaces the user's recovery codes by these hashes: the earlier ones stop working. */
export async function replaceRecoveryCodes(
  db: Database,
  userId: number,
  codeHashes: readonly string[],
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(staffRecoveryCodes).where(eq(staffRecoveryCodes.staffUserId, userId));
    await tx
      .insert(staffRecoveryCodes)
      .values(codeHashes.map((codeHash) => ({ staffUserId: userId, codeHash, createdAt: now })));
  });
}

/** Uses a recovery code once: of racing tries, only the update that finds it unused wins. */
export async function useRecoveryCode(
  db: Database,
  userId: number,
  codeHash: string,
  now: Date,
): Promise<boolean> {
  const used = await db
    .update(staffRecoveryCodes)
    .set({ usedAt: now })
    .where(
      and(
        eq(staffRecoveryCodes.staffUserId, userId),
        eq(staffRecoveryCodes.codeHash, codeHash),
        isNull(staffRecoveryCodes.usedAt),
      ),
    )
    .returning({ id: staffRecoveryCodes.id });
  return used.length > 0;
}

/** What an operator's reset removed, and the sessions it ended. */
export interface FactorsReset {
  totp: boolean;
  passkeys: number;
  recoveryCodes: number;
  endedSessionIds: string[];
}

/** Removes every factor of the user and ends the user's sessions, together. */
export async function resetFactors(db: Database, userId: number, now: Date): Promise<FactorsReset> {
  return db.transaction(async (tx) => {
    const totp = await tx
      .delete(staffTotp)
      .where(eq(staffTotp.staffUserId, userId))
      .returning({ id: staffTotp.staffUserId });
    const passkeys = await tx
      .delete(staffPasskeys)
      .where(eq(staffPasskeys.staffUserId, userId))
      .returning({ id: staffPasskeys.credentialId });
    const codes = await tx
      .delete(staffRecoveryCodes)
      .where(eq(staffRecoveryCodes.staffUserId, userId))
      .returning({ id: staffRecoveryCodes.id });
    const endedSessionIds = await revokeStaffUserSessions(tx, userId, {
      reason: 'second-factors-reset',
      now,
      keptSessionId: undefined,
    });
    return {
      totp: totp.length > 0,
      passkeys: passkeys.length,
      recoveryCodes: codes.length,
      endedSessionIds,
    };
  });
}
