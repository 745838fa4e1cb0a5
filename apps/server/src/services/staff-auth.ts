import type { AuthTokenResult, LockPolicy, LockState } from '@entry/domain';
import type { FastifyBaseLogger } from 'fastify';
import { appsOrigin } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { StaffKind } from '../db/schema.ts';
import { ApiError, refuse } from '../refusals.ts';
import {
  claimResetToken,
  findResetToken,
  findStaffUser,
  giveBackAttempt,
  insertResetToken,
  type PasswordChangeEnded,
  recordRightPassword,
  recordWrongPassword,
  reserveAttempt,
  type StaffUser,
  setPassword as storePassword,
} from '../stores/staff-users.ts';
import { findTenantById } from '../stores/tenants.ts';
import type { AuditEntry } from './audit.ts';
import type { EnqueueMailInput } from './mail.ts';
import { assertStrongPassword, hashPassword, verifyPassword } from './passwords.ts';
import { accessAfterPassword, type PasswordAccess } from './second-factors.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import type { NewSession } from './sessions.ts';
import { createSubscriptionLinks } from './subscriptions.ts';

/** 10 consecutive failures lock a staff account for 15 minutes, doubling up to 24 hours. */
export const staffLockPolicy: LockPolicy = { threshold: 10 };
export const resetTokenLifetimeMs = 30 * 60_000;

export const staffMailTexts = {
  resetSubject: 'Reset your password',
  resetBody: (link: string) =>
    `Someone asked to reset the password of your account. To choose a new password, open this link within 30 minutes:\n\n${link}\n\nThe link works once. If you did not ask for this, you can ignore this mail; your password stays as it is.`,
} as const;

export const normaliseUsername = (username: string) => username.trim().toLowerCase();

/** The enabled user of that kind and username, as stored. */
async function findEnabledUser(
  ctx: AppContext,
  kind: StaffKind,
  username: string,
): Promise<StaffUser | undefined> {
  const user = await findStaffUser(ctx.db, kind, normaliseUsername(username));
  return user?.disabled ? undefined : user;
}

/** What a right password leads to, from one read of the user's tenant. */
interface RightPasswordTerms {
  passwordExpired: boolean;
  access: PasswordAccess;
}

async function rightPasswordTerms(ctx: AppContext, user: StaffUser): Promise<RightPasswordTerms> {
  const tenant = user.tenantId === null ? undefined : await findTenantById(ctx.db, user.tenantId);
  const maxDays = tenant?.settings.maxPasswordAgeDays;
  const passwordExpired =
    maxDays !== null &&
    maxDays !== undefined &&
    ctx.clock.now().getTime() - user.passwordChangedAt.getTime() > maxDays * 86_400_000;
  return { passwordExpired, access: await accessAfterPassword(ctx, user, tenant) };
}

interface PasswordCheck {
  ctx: AppContext;
  kind: StaffKind;
  username: string;
  password: string;
  ip: string;
  event: string;
  /** Whether the client has gone: a check not started by then is dropped (decision record 014). */
  clientGone?: () => boolean;
  /**
   * A lookup of the reserved user that runs while the password is hashed, so a right password
   * settles its place as soon as the hash is done.
   */
  whileHashing?: (reserved: StaffUser) => Promise<void>;
}

/**
 * Checks a username and password, the attempt paid for first (`reserveAttempt`). An unknown or
 * disabled user costs the same hashing work and answers as a wrong password; a locked account, or
 * one whose budget attempts in flight have spent, is refused before its password is looked at.
 * Answers the row the right password was checked against; its reserved place is still taken.
 * When the client has gone before a hashing thread takes the check, it rejects with a
 * `ClientGoneError` and gives the place back.
 */
async function checkPassword(check: PasswordCheck): Promise<StaffUser> {
  const { ctx, kind, username, password, ip, event, clientGone } = check;
  const reserved = await reserveAttempt(
    ctx.db,
    { kind, username: normaliseUsername(username) },
    staffLockPolicy,
    ctx.clock.now(),
  );
  if (reserved === undefined) {
    const user = await findEnabledUser(ctx, kind, username);
    await verifyPassword(undefined, password, clientGone);
    if (user === undefined) {
      await ctx.audit.record({
        event,
        outcome: 'failure',
        actor: null,
        ip,
        detail: { reason: 'unknown user' },
      });
      throw refuse('invalidSignIn');
    }
    await ctx.audit.record({
      event,
      outcome: 'locked',
      actor: `${kind}:${user.id}`,
      tenantId: user.tenantId,
      ip,
    });
    throw refuse('userLocked', { retryAt: { until: user.lockedUntil, now: ctx.clock.now() } });
  }
  const matches = await Promise.all([
    verifyPassword(reserved.passwordHash, password, clientGone),
    check.whileHashing?.(reserved),
  ])
    .then(([verified]) => verified)
    .catch(async (error: unknown) => {
      await giveBackAttempt(ctx.db, reserved);
      throw error;
    });
  if (matches) return reserved;
  const lockedUntil = await recordWrongPassword(ctx.db, reserved, staffLockPolicy, ctx.clock.now());
  const locks = reserved.failedCount >= staffLockPolicy.threshold;
  await ctx.audit.record({
    event,
    outcome: locks ? 'locked' : 'failure',
    actor: `${kind}:${reserved.id}`,
    tenantId: reserved.tenantId,
    ip,
    detail: { reason: 'wrong password' },
  });
  throw locks
    ? refuse('userLocked', { retryAt: { until: lockedUntil, now: ctx.clock.now() } })
    : refuse('invalidSignIn');
}

/** A right password that proves nothing: the user was disabled or the password changed during the check. */
async function refuseChangedDuringCheck(check: PasswordCheck, reserved: StaffUser): Promise<never> {
  const { ctx, kind, ip, event } = check;
  await ctx.audit.record({
    event,
    outcome: 'failure',
    actor: `${kind}:${reserved.id}`,
    tenantId: reserved.tenantId,
    ip,
    detail: { reason: 'changed during the check' },
  });
  throw refuse('invalidSignIn');
}

export async function staffSignIn(
  ctx: AppContext,
  kind: StaffKind,
  credentials: { username: string; password: string },
  ip: string,
  clientGone?: () => boolean,
): Promise<AuthTokenResult> {
  const event = `${kind}.sign-in`;
  let terms: Promise<RightPasswordTerms> | undefined;
  const whileHashing = async (reserved: StaffUser) => {
    terms = rightPasswordTerms(ctx, reserved);
    await terms;
  };
  const check: PasswordCheck = { ctx, kind, ...credentials, ip, event, clientGone, whileHashing };
  const user = await checkPassword(check);
  const actor = `${kind}:${user.id}`;
  const { passwordExpired, access: granted } = await (terms ?? rightPasswordTerms(ctx, user));
  if (passwordExpired) {
    if (!(await recordRightPassword(ctx.db, user))) return refuseChangedDuringCheck(check, user);
    await ctx.audit.record({
      event,
      outcome: 'failure',
      actor,
      tenantId: user.tenantId,
      ip,
      detail: { reason: 'password expired' },
    });
    throw refuse('passwordExpired');
  }
  // A user with a second factor, or one who must enrol one, gets a session good only for that.
  // The right password, the session and its audit row commit together in one statement.
  const session: NewSession = { scope: kind, tenantId: user.tenantId, staffUserId: user.id, ...granted };
  const reserved = ctx.sessions.reserve();
  const audited = ctx.audit.insertOf({
    event,
    outcome: 'success',
    actor,
    tenantId: user.tenantId,
    ip,
    detail: {
      sessionId: reserved.id,
      ...(granted.hasRestrictedAccess ? { accessType: granted.accessType } : {}),
    },
  });
  if (!(await recordRightPassword(ctx.db, user, [...reserved.inserts(session), audited]))) {
    return refuseChangedDuringCheck(check, user);
  }
  return reserved.firstPair(session, {
    consumerName: null,
    staffName: user.displayName,
    launchedByName: null,
  });
}

/** The portal of each staff kind on the apps host (DESIGN.md section 6). */
const portalPrefix: Record<StaffKind, string> = { admin: '/a', customer: '/d' };

/** The reset-password page with a one-use reset token: the link a reset mails and a new account gets. */
export function resetPasswordUrl(config: AppContext['config'], kind: StaffKind, token: string): string {
  return `${appsOrigin(config)}${portalPrefix[kind]}/reset-password?token=${encodeURIComponent(token)}`;
}

/** A staff mail's content; its kind, for the audit row of its sending, is `staff-notice` unless given. */
export interface StaffMail {
  kind?: string;
  subject: string;
  text: string;
  expiresAt?: Date;
}

/**
 * A mail to a staff user, with the unsubscribe links every mail to a tenant's address carries;
 * `expiresAt` when what it carries stops working.
 */
export async function staffMailOf(
  deps: Pick<AppContext, 'db' | 'config' | 'subscriptionKey'>,
  user: Pick<StaffUser, 'tenantId' | 'email'>,
  mail: StaffMail,
): Promise<EnqueueMailInput> {
  let unsubscribe = null;
  if (user.tenantId !== null) {
    const tenant = await findTenantById(deps.db, user.tenantId);
    if (tenant !== undefined) {
      unsubscribe = createSubscriptionLinks(deps.config, deps.subscriptionKey).unsubscribeLinksFor(tenant, {
        customerId: tenant.id,
        emailAddress: user.email,
      });
    }
  }
  return { kind: 'staff-notice', tenantId: user.tenantId, to: user.email, ...mail, unsubscribe };
}

/** Queues `staffMailOf` and starts its delivery. */
export async function mailStaffUser(
  ctx: AppContext,
  user: Pick<StaffUser, 'tenantId' | 'email'>,
  mail: StaffMail,
): Promise<void> {
  await ctx.mail.enqueueMail(await staffMailOf(ctx, user, mail));
}

function sendResetMail(ctx: AppContext, user: StaffUser, token: string, expiresAt: Date): Promise<void> {
  const link = resetPasswordUrl(ctx.config, user.kind, token);
  return mailStaffUser(ctx, user, {
    kind: 'staff-reset',
    subject: staffMailTexts.resetSubject,
    text: staffMailTexts.resetBody(link),
    expiresAt,
  });
}

/**
 * Always answers the same way: whether the user exists is never revealed. The work for a real
 * user happens off the response path so the answer takes as long either way.
 */
export function requestPasswordReset(
  ctx: AppContext,
  kind: StaffKind,
  username: string,
  ip: string,
  log: FastifyBaseLogger,
): void {
  const work = async () => {
    const user = await findEnabledUser(ctx, kind, username);
    await ctx.audit.record({
      event: `${kind}.password.reset-request`,
      outcome: user === undefined ? 'failure' : 'success',
      actor: user === undefined ? null : `${kind}:${user.id}`,
      tenantId: user?.tenantId ?? null,
      ip,
    });
    if (user === undefined) return;
    const token = randomToken();
    const now = ctx.clock.now();
    const expiresAt = new Date(now.getTime() + resetTokenLifetimeMs);
    await insertResetToken(ctx.db, user.id, { hash: hashToken(token), createdAt: now, expiresAt });
    await sendResetMail(ctx, user, token, expiresAt);
  };
  work().catch((error: unknown) => log.error({ err: error }, 'password reset request failed'));
}

/** How a new password came, and the session of the request that set it, which stays. */
interface PasswordSetting {
  by: 'reset-token' | 'current-password';
  ip: string;
  keptSessionId: string | undefined;
}

/**
 * Sets a new password on `user`'s row, with `counts` for its lock columns (with `whileAsChecked`,
 * only while the row still has the password that was checked), ending the user's unused reset
 * links and other sessions, each session's ending audited with its cause. All of it commits
 * together, or nothing when the row is no longer found (answered false).
 */
async function setPassword(
  ctx: AppContext,
  user: StaffUser,
  newPassword: string,
  rules: { whileAsChecked: boolean; counts: Partial<LockState> },
  setting: PasswordSetting,
): Promise<boolean> {
  const actor = `${user.kind}:${user.id}`;
  const audited = (ended: PasswordChangeEnded) =>
    [
      {
        event: `${user.kind}.password.change`,
        outcome: 'success',
        actor,
        tenantId: user.tenantId,
        ip: setting.ip,
        detail: {
          by: setting.by,
          voidedResetLinks: ended.voidedResetLinks,
          endedSessions: ended.endedSessionIds.length,
        },
      } satisfies AuditEntry,
      ...ended.endedSessionIds.map(
        (sessionId): AuditEntry => ({
          event: `${user.kind}.session.end`,
          outcome: 'revoked',
          actor,
          tenantId: user.tenantId,
          ip: setting.ip,
          detail: { sessionId, cause: 'password-changed' },
        }),
      ),
    ].map((entry) => ctx.audit.insertOf(entry));
  const ended = await storePassword(
    ctx.db,
    {
      user,
      passwordHash: await hashPassword(newPassword),
      now: ctx.clock.now(),
      counts: rules.counts,
      whileAsChecked: rules.whileAsChecked,
      keptSessionId: setting.keptSessionId,
    },
    audited,
  );
  return ended !== undefined;
}

/**
 * The reset link of `resetToken` while it can still set a password: 404 for an unknown one, 409
 * for a used or expired one. Only a hash lookup: the token is 256 random bits, so nothing is guessed.
 */
async function usableResetToken(ctx: AppContext, kind: StaffKind, resetToken: string) {
  const hash = hashToken(resetToken);
  const found = await findResetToken(ctx.db, hash, kind);
  if (found === undefined) throw refuse('itemNotFound');
  const now = ctx.clock.now();
  if (found.token.usedAt !== null || found.token.expiresAt.getTime() <= now.getTime()) {
    throw refuse('invalidResetToken');
  }
  return { hash, found, now };
}

/** Whether a reset link can still set a password, refused as `changePassword` would refuse it; it changes nothing. */
export async function checkResetToken(ctx: AppContext, kind: StaffKind, resetToken: string): Promise<void> {
  await usableResetToken(ctx, kind, resetToken);
}

export type PasswordChange =
  | { username: string; currentPassword: string; newPassword: string }
  | { resetToken: string; newPassword: string };

/** A refusal of the current password, said as such: unknown users get the same answer. */
function asWrongCurrentPassword(error: unknown): never {
  if (error instanceof ApiError && error.errorCode === 'InvalidSignIn') {
    throw refuse('wrongCurrentPassword');
  }
  throw error;
}

/**
 * Sets a new password by a reset link or by the current password, which is checked against the
 * same budget as a sign-in. `keptSessionId` names the session of the request, which stays signed in.
 */
export async function changePassword(
  ctx: AppContext,
  kind: StaffKind,
  change: PasswordChange,
  ip: string,
  keptSessionId?: string,
): Promise<void> {
  if ('resetToken' in change) {
    const { hash, found, now } = await usableResetToken(ctx, kind, change.resetToken);
    await assertStrongPassword(change.newPassword, [
      found.user.username,
      found.user.email,
      found.user.displayName,
    ]);
    if (!(await claimResetToken(ctx.db, hash, now))) throw refuse('invalidResetToken');
    // Whoever holds the mailbox may unlock the account.
    await setPassword(
      ctx,
      found.user,
      change.newPassword,
      { whileAsChecked: false, counts: { failedCount: 0, lockedUntil: null } },
      { by: 'reset-token', ip, keptSessionId },
    );
    return;
  }

  const check: PasswordCheck = {
    ctx,
    kind,
    username: change.username,
    password: change.currentPassword,
    ip,
    event: `${kind}.password.change`,
  };
  const reserved = await checkPassword(check).catch(asWrongCurrentPassword);
  try {
    await assertStrongPassword(change.newPassword, [reserved.username, reserved.email, reserved.displayName]);
  } catch (error) {
    await recordRightPassword(ctx.db, reserved);
    throw error;
  }
  // Attempts still in flight were made against the old password and count for nothing now.
  const set = await setPassword(
    ctx,
    reserved,
    change.newPassword,
    { whileAsChecked: true, counts: { failedCount: 0 } },
    { by: 'current-password', ip, keptSessionId },
  );
  if (!set) await refuseChangedDuringCheck(check, reserved).catch(asWrongCurrentPassword);
}
