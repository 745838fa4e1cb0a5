import type { StaffKind } from '@entry/domain';
import { and, asc, eq, ilike, or, type SQL, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { passwordResetTokens, staffUsers } from '../db/schema.ts';
import { revokeStaffUserSessions } from './sessions.ts';
import type { NewStaffUserRow, StaffUser, StoredResetToken } from './staff-users.ts';

/**
 * The operator's statements on staff users, from the CLI and the console: adding, disabling,
 * enabling and unlocking one, its manager role, and the listings. The sign-in's are in staff-users.ts.
 */

/** Adds a user with the reset link of its first password; undefined when the kind already has that username. */
export async function insertStaffUser(
  db: Database,
  row: NewStaffUserRow,
  firstPasswordLink: StoredResetToken,
): Promise<number | undefined> {
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: staffUsers.id })
      .from(staffUsers)
      .where(and(eq(staffUsers.kind, row.kind), eq(staffUsers.username, row.username)));
    if (existing !== undefined) return undefined;
    const [inserted] = await tx.insert(staffUsers).values(row).returning({ id: staffUsers.id });
    if (inserted === undefined) throw new Error('staff user insert returned no row');
    await tx.insert(passwordResetTokens).values({ ...firstPasswordLink, userId: inserted.id });
    return inserted.id;
  });
}

/** Disables the account and ends its open sessions, together; answers the sessions it ended. */
export async function disableStaffUser(db: Database, userId: number, now: Date): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.update(staffUsers).set({ disabled: true }).where(eq(staffUsers.id, userId));
    return revokeStaffUserSessions(tx, userId, { reason: 'user-disabled', now, keptSessionId: undefined });
  });
}

export async function enableStaffUser(db: Database, userId: number): Promise<void> {
  await db.update(staffUsers).set({ disabled: false }).where(eq(staffUsers.id, userId));
}

/** Lifts the password's and the second factor's locks and forgets the failures, as if the account had never failed. */
export async function unlockStaffUser(db: Database, userId: number): Promise<void> {
  await db
    .update(staffUsers)
    .set({
      failedCount: 0,
      lockedUntil: null,
      lockLevel: 0,
      lastFailureAt: null,
      secondFactorFailedCount: 0,
      secondFactorLockedUntil: null,
      secondFactorLockLevel: 0,
      secondFactorLastFailureAt: null,
    })
    .where(eq(staffUsers.id, userId));
}

/** A staff user as the console lists it: the row with its last sign-in and second factors. */
export interface StaffUserListing {
  user: StaffUser;
  lastSignInAt: Date | null;
  authenticatorApp: boolean;
  passkeys: number;
}

export interface StaffUserFilter {
  userId?: number | undefined;
  kind?: StaffKind | undefined;
  tenantId?: number | undefined;
  /** Part of the username, display name or e-mail address, any case. */
  search?: string | undefined;
}

/** Where a text may sit anywhere in a column: its LIKE wildcards match themselves. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** The staff users a filter names, by kind then username, with what the console shows of each. */
export async function listStaffUsers(
  db: Database,
  filter: StaffUserFilter,
  limit: number,
): Promise<StaffUserListing[]> {
  const conditions: SQL[] = [];
  if (filter.userId !== undefined) conditions.push(eq(staffUsers.id, filter.userId));
  if (filter.kind !== undefined) conditions.push(eq(staffUsers.kind, filter.kind));
  if (filter.tenantId !== undefined) conditions.push(eq(staffUsers.tenantId, filter.tenantId));
  if (filter.search !== undefined && filter.search !== '') {
    const pattern = containing(filter.search);
    const matching = or(
      ilike(staffUsers.username, pattern),
      ilike(staffUsers.displayName, pattern),
      ilike(staffUsers.email, pattern),
    );
    if (matching !== undefined) conditions.push(matching);
  }
  const rows = await db
    .select({
      user: staffUsers,
      // Written out: drizzle leaves a one-table select's columns unqualified, and the subqueries' tables would take them.
      lastSignInAt:
        sql<Date | null>`(select max(s.created_at) from sessions s where s.staff_user_id = staff_users.id)`.mapWith(
          (value: string | Date | null) => (value === null ? null : new Date(value)),
        ),
      authenticatorApp: sql<boolean>`exists (select 1 from staff_totp t where t.staff_user_id = staff_users.id and t.confirmed_at is not null)`,
      passkeys:
        sql<number>`(select count(*) from staff_passkeys p where p.staff_user_id = staff_users.id)`.mapWith(
          Number,
        ),
    })
    .from(staffUsers)
    .where(and(...conditions))
    .orderBy(asc(staffUsers.kind), asc(staffUsers.username))
    .limit(limit);
  return rows;
}

/** Gives or takes a customer user's manager role. */
export async function setStaffManager(db: Database, userId: number, manager: boolean): Promise<void> {
  await db
    .update(staffUsers)
    .set({ manager })
    .where(and(eq(staffUsers.id, userId), eq(staffUsers.kind, 'customer')));
}

/** How many staff users each tenant has, by tenant id. */
export async function staffCountsByTenant(db: Database): Promise<Map<number, number>> {
  const rows = await db
    .select({ tenantId: staffUsers.tenantId, count: sql<number>`count(*)`.mapWith(Number) })
    .from(staffUsers)
    .groupBy(staffUsers.tenantId);
  return new Map(rows.flatMap((row) => (row.tenantId === null ? [] : [[row.tenantId, row.count]])));
}
