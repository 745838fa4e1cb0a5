import { randomBytes } from 'node:crypto';
import type { StaffKind } from '@entry/domain';
import { roleIdByScope, validators } from '@entry/domain';
import type { Clock, Config } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/index.ts';
import { refuse } from '../refusals.ts';
import {
  disableStaffUser as disableUser,
  enableStaffUser as enableUser,
  insertStaffUser,
  setStaffManager as setManager,
  unlockStaffUser as unlockUser,
} from '../stores/staff-user-admin.ts';
import { findStaffUser, insertResetToken, type StaffUser } from '../stores/staff-users.ts';
import { hashPassword } from './passwords.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import { endingDepsOf, recordEndings } from './session-endings.ts';
import { mailStaffUser, resetPasswordUrl } from './staff-mail.ts';
import { tenantBySubdomain } from './tenants.ts';

export const normaliseUsername = (username: string) => username.trim().toLowerCase();

/** How long the one-use link that sets a new account's first password stays valid. */
export const initialPasswordLinkHours = 72;

const usernameLength = validators.lengthRange(3, 100);
const usernamePattern = /^[a-z0-9][a-z0-9._@-]*$/;

/** Where a new staff user belongs: an admin to no tenant, a customer user to the tenant of a subdomain. */
export type StaffPlacement = { kind: 'admin' } | { kind: 'customer'; tenant: string };

export type NewStaffUser = StaffPlacement & {
  username: string;
  email: string;
  displayName?: string;
  /** A customer user who manages their organization's staff in the console. */
  manager?: boolean;
};

export interface CreatedStaffUser {
  id: number;
  kind: StaffKind;
  username: string;
  tenantId: number | null;
  manager: boolean;
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
  if (input.kind === 'admin' && input.manager === true) throw refuse('managerOfAdmin');
  const tenantId = input.kind === 'admin' ? null : (await tenantBySubdomain(db, input.tenant)).customerId;

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
      manager: input.manager === true,
      invitationPending: true,
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
    manager: input.manager === true,
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

/**
 * Disables the account and ends its open sessions, with the sessions they launched; each ending is
 * audited with `actor`. Answers the user's id.
 */
export async function disableStaffUser(
  deps: Pick<AppContext, 'db' | 'clock' | 'audit' | 'config'>,
  kind: StaffKind,
  username: string,
  actor: string,
): Promise<number> {
  const id = await existingUserId(deps.db, kind, username);
  const endedSessionIds = await disableUser(deps.db, id, deps.clock.now());
  await deps.audit.recordMany(
    endedSessionIds.map((sessionId) => ({
      event: `${kind}.session.end`,
      outcome: 'revoked' as const,
      actor,
      detail: { sessionId, cause: 'user-disabled', userId: id },
    })),
  );
  await recordEndings(endingDepsOf(deps), { sessionIds: endedSessionIds });
  return id;
}

export async function enableStaffUser(db: Database, kind: StaffKind, username: string): Promise<number> {
  const id = await existingUserId(db, kind, username);
  await enableUser(db, id);
  return id;
}

/** Gives or takes a customer user's manager role; an admin is never a manager. */
export async function setStaffUserManager(
  db: Database,
  kind: StaffKind,
  username: string,
  manager: boolean,
): Promise<StaffUser> {
  if (kind !== 'customer') throw refuse('managerOfAdmin');
  const user = await existingStaffUser(db, kind, username);
  await setManager(db, user.id, manager);
  return { ...user, manager };
}

/** Lifts a lock after failed sign-ins and forgets the failures, as if the account had never failed. */
export async function unlockStaffUser(db: Database, kind: StaffKind, username: string): Promise<number> {
  const id = await existingUserId(db, kind, username);
  await unlockUser(db, id);
  return id;
}

const invitationMailText = (link: string) =>
  `An account was set up for you. To choose your password and sign in, open this link within ${initialPasswordLinkHours} hours:\n\n${link}\n\nThe link works once. If you did not expect this mail, you can ignore it.`;

/** Mails a new account the one-use link that sets its first password. */
export async function mailInvitation(
  ctx: AppContext,
  user: Pick<StaffUser, 'tenantId' | 'email'>,
  invitation: Pick<CreatedStaffUser, 'setPasswordUrl' | 'setPasswordExpiresAt'>,
): Promise<void> {
  await mailStaffUser(ctx, user, {
    kind: 'staff-invitation',
    subject: 'Your new account',
    text: invitationMailText(invitation.setPasswordUrl),
    expiresAt: invitation.setPasswordExpiresAt,
  });
}

/** Whether the user, invited, has not chosen a first password yet. */
export function isInvitationPending(user: Pick<StaffUser, 'invitationPending'>): boolean {
  return user.invitationPending;
}

/** A new one-use link for an account that has not set its first password, mailed to the user. */
export async function resendInvitation(ctx: AppContext, user: StaffUser): Promise<Date> {
  if (!isInvitationPending(user)) throw refuse('invitationAccepted');
  const token = randomToken();
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + initialPasswordLinkHours * 3_600_000);
  await insertResetToken(ctx.db, user.id, { hash: hashToken(token), createdAt: now, expiresAt });
  await mailInvitation(ctx, user, {
    setPasswordUrl: resetPasswordUrl(ctx.config, user.kind, token),
    setPasswordExpiresAt: expiresAt,
  });
  return expiresAt;
}
