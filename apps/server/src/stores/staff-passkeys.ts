import type { StaffKind } from '@entry/domain';
import { and, asc, eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { staffPasskeys, staffUsers } from '../db/schema.ts';

/**
 * Staff users' passkeys: the statements that add, use and rename them, and the reads a passkey's
 * use needs; a removal is `second-factors.ts`'s, with the rule of the last factor.
 */

export type StaffPasskey = typeof staffPasskeys.$inferSelect;

export type NewStaffPasskey = Omit<StaffPasskey, 'lastUsedAt'>;

/** The user's passkeys, oldest first: a registration excludes them, a second step allows them. */
export async function listPasskeys(db: Database, userId: number): Promise<StaffPasskey[]> {
  return db
    .select()
    .from(staffPasskeys)
    .where(eq(staffPasskeys.staffUserId, userId))
    .orderBy(asc(staffPasskeys.createdAt));
}

/** A passkey as a sign-in finds it: with its user's kind and tenant. */
export interface PasskeyOfUser {
  passkey: StaffPasskey;
  kind: StaffKind;
  tenantId: number | null;
}

export async function findPasskey(db: Database, credentialId: string): Promise<PasskeyOfUser | undefined> {
  const [found] = await db
    .select({ passkey: staffPasskeys, kind: staffUsers.kind, tenantId: staffUsers.tenantId })
    .from(staffPasskeys)
    .innerJoin(staffUsers, eq(staffUsers.id, staffPasskeys.staffUserId))
    .where(eq(staffPasskeys.credentialId, credentialId));
  return found;
}

/** Adds a passkey; answers false, writing nothing, when that credential is registered already. */
export async function insertPasskey(db: Database, passkey: NewStaffPasskey): Promise<boolean> {
  const inserted = await db
    .insert(staffPasskeys)
    .values(passkey)
    .onConflictDoNothing({ target: staffPasskeys.credentialId })
    .returning({ id: staffPasskeys.credentialId });
  return inserted.length > 0;
}

/** What a verified assertion says about its passkey now. */
export interface PasskeyUse {
  passkey: StaffPasskey;
  counter: number;
  backedUp: boolean;
  at: Date;
}

/**
 * Records a use: its counter and backup flag, only while the stored counter is the one the
 * assertion was checked against, so of two assertions checked against one counter only one
 * counts (an authenticator that keeps no counter reports 0 every time, and stays at 0).
 */
export async function recordPasskeyUse(db: Database, use: PasskeyUse): Promise<boolean> {
  const recorded = await db
    .update(staffPasskeys)
    .set({ counter: use.counter, backedUp: use.backedUp, lastUsedAt: use.at })
    .where(
      and(
        eq(staffPasskeys.credentialId, use.passkey.credentialId),
        eq(staffPasskeys.counter, use.passkey.counter),
      ),
    )
    .returning({ id: staffPasskeys.credentialId });
  return recorded.length > 0;
}

/** Renames the user's passkey; answers false when the user has no passkey of that id. */
export async function renamePasskey(
  db: Database,
  userId: number,
  credentialId: string,
  name: string,
): Promise<boolean> {
  const renamed = await db
    .update(staffPasskeys)
    .set({ name })
    .where(and(eq(staffPasskeys.credentialId, credentialId), eq(staffPasskeys.staffUserId, userId)))
    .returning({ id: staffPasskeys.credentialId });
  return renamed.length > 0;
}
