import { randomBytes } from 'node:crypto';
import type { StaffKind } from '@entry/domain';
import { roleIdByScope, validators } from '@entry/domain';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { refuse } from '../refusals.ts';
import {
  disableStaffUser as disableUser,
  enableStaffUser as enableUser,
  findStaffUser,
  insertStaffUser,
  type StaffUser,
  unlockStaffUser as unlockUser,
} from '../stores/staff-users.ts';
import { hashPassword } from './passwords.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import { resetPasswordUrl } from './staff-mail.ts';
import { tenantBySubdomain } from './tenants.ts';

export const normaliseUsername = (username: string) => username.trim().toLowerCase();

/** How long the one-use link that sets a new account's first password stays valid. */
export const initialPasswordLinkHours = 72;

const usernameLength = validators.lengthRange(3, 100);
const usernamePattern = /^[a-z0-9][a-z0-9._@-]*$/;

export interface NewStaffUser {
  kind: StaffKind;
  /** The tenant's subdomain; customer users only. */
  tenant?: string;
  username: string;
  email: string;
  displayName?: string;
}

export interface CreatedStaffUser {
  id: number;
  kind: StaffKind;
  username: string;
  tenantId: number | null;
  /** The one-use link that sets the first password; shown once, stored only as a hash. */
  setPasswordUrl: string;
  setPasswordExpiresAt: Date;
}

function checkedUsername(username: string): string {
  const value = normaliseUsername(username);
  if (usernameLength(value) !== null || value === '' || !usernamePattern.test(value)) {
    throw refuse('invalidUsername');
  }
  return value;
}

export async function createStaffUser(
  db: Database,
  config: Config,
  clock: Clock,
  input: NewStaffUser,
): Promise<CreatedStaffUser> {
  const username = checkedUsername(input.username);
  const email = input.email.trim();
  if (email === '' || validators.email(email) !== null) throw refuse('invalidEmail');
  const displayName = (input.displayName ?? username).trim();
  if (displayName === '' || displayName.length > 200) {
    throw refuse('invalidDisplayName');
  }
  if (input.kind === 'customer' && input.tenant === undefined) {
    throw refuse('tenantRequired');
  }
  if (input.kind === 'admin' && input.tenant !== undefined) {
    throw refuse('tenantForbidden');
  }
  const tenantId = input.tenant === undefined ? null : (await tenantBySubdomain(db, input.tenant)).customerId;

  // Nobody knows this password: the account cannot sign in until its first password is set.
  const unusablePasswordHash = await hashPassword(randomBytes(32).toString('base64url'));
  const resetToken = randomToken();
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + initialPasswordLinkHours * 3_600_000);

  const id = await insertStaffUser(
    db,
    {
      kind: input.kind,
      tenantId,
      username,
      email,
      displayName,
      roleId: roleIdByScope[input.kind],
      passwordHash: unusablePasswordHash,
      passwordChangedAt: now,
      createdAt: now,
    },
    { hash: hashToken(resetToken), createdAt: now, expiresAt },
  );
  if (id === undefined) throw refuse('duplicateStaffUser', { kind: input.kind, username });
  return {
    id,
    kind: input.kind,
    username,
    tenantId,
    setPasswordUrl: resetPasswordUrl(config, input.kind, resetToken),
    setPasswordExpiresAt: expiresAt,
  };
}

/** The user an operator names; refused when there is none. */
export async function existingStaffUser(db: Database, kind: StaffKind, username: string): Promise<StaffUser> {
  const normalised = normaliseUsername(username);
  const user = await findStaffUser(db, kind, normalised);
  if (user === undefined) throw refuse('staffUserNotFound', { kind, username: normalised });
  return user;
}

async function existingUserId(db: Database, kind: StaffKind, username: string): Promise<number> {
  return (await existingStaffUser(db, kind, username)).id;
}

/** Disables the account and ends its open sessions; returns the user's id and the sessions it ended. */
export async function disableStaffUser(
  db: Database,
  clock: Clock,
  kind: StaffKind,
  username: string,
): Promise<{ id: number; endedSessionIds: string[] }> {
  const id = await existingUserId(db, kind, username);
  return { id, endedSessionIds: await disableUser(db, id, clock.now()) };
}

export async function enableStaffUser(db: Database, kind: StaffKind, username: string): Promise<number> {
  const id = await existingUserId(db, kind, username);
  await enableUser(db, id);
  return id;
}

/** Lifts a lock after failed sign-ins and forgets the failures, as if the account had never failed. */
export async function unlockStaffUser(db: Database, kind: StaffKind, username: string): Promise<number> {
  const id = await existingUserId(db, kind, username);
  await unlockUser(db, id);
  return id;
}
