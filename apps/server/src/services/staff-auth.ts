import type { AuthTokenResult, LockState } from '@entry/domain';
import type { FastifyBaseLogger } from 'fastify';
import type { AppContext } from '../context.ts';
import type { StaffKind } from '../db/schema.ts';
import { ApiError, refuse } from '../refusals.ts';
import { takeResetMail } from '../stores/reset-mail-budget.ts';
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
import type { AuditEntry } from './audit.ts';
import { isPasswordExpired } from './password-age.ts';
import { assertStrongPassword, hashPassword, verifyPassword } from './passwords.ts';
import {
  accessAfterPassword,
  isRecentSecondFactor,
  type PasswordAccess,
  tenantOf,
} from './second-factors.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import type { NewSession } from './sessions.ts';
import { refuseWrongAttempt, staffLockPolicy } from './staff-attempts.ts';
import {
  mailSecurityNotice,
  mailStaffUser,
  resetPasswordUrl,
  resetTokenLifetimeMs,
  staffMailTexts,
} from './staff-mail.ts';

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
  const tenant = await tenantOf(ctx, user);
  const passwordExpired = isPasswordExpired(user, tenant, ctx.clock.now());
  return { passwordExpired, access: await accessAfterPassword(ctx, user, tenant) };
}

interface PasswordCheck {
  ctx: AppContext;
  kind: StaffKind;
  username: string;
  password: string;
  ip: string;
  event: string;
  /** Whether the client has gone: a check not started by then is dropped (decision record 017). */
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
  const wrong = await recordWrongPassword(ctx.db, reserved, staffLockPolicy, ctx.clock.now());
  return refuseWrongAttempt(
    ctx,
    { user: reserved, budget: 'password', wrong, event, ip, detail: { reason: 'wrong password' } },
    () => refuse('invalidSignIn'),
  );
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
  // A user with a second factor passes it first: the password change then needs that factor.
  if (passwordExpired && granted.accessType !== 'SecondFactorPending') {
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

function sendResetMail(ctx: AppContext, user: StaffUser, token: string, expiresAt: Date): Promise<void> {
  const link = resetPasswordUrl(ctx.config, user.kind, token);
  return mailStaffUser(ctx, user, {
    kind: 'staff-reset',
    subject: staffMailTexts.resetSubject,
    text: staffMailTexts.resetBody(link),
    expiresAt,
  });
}

const resetMailLimitCause = 'reset mails per hour used up';

/**
 * Always answers the same way: whether the user exists, or has had all the reset mails of the
 * hour, is never revealed. The work happens off the response path so the answer takes as long
 * either way.
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
    const now = ctx.clock.now();
    const placed = user !== undefined && (await takeResetMail(ctx.db, user.id, now));
    if (placed) {
      const token = randomToken();
      const expiresAt = new Date(now.getTime() + resetTokenLifetimeMs);
      await insertResetToken(ctx.db, user.id, { hash: hashToken(token), createdAt: now, expiresAt });
      await sendResetMail(ctx, user, token, expiresAt);
    }
    await ctx.audit.record({
      event: `${kind}.password.reset-request`,
      outcome: placed ? 'success' : 'failure',
      actor: user === undefined ? null : `${kind}:${user.id}`,
      tenantId: user?.tenantId ?? null,
      ip,
      ...(user !== undefined && !placed ? { detail: { cause: resetMailLimitCause } } : {}),
    });
  };
  work().catch((error: unknown) => log.error({ err: error }, 'password reset request failed'));
}

/** The live session a password change request names, if any: it stays, and may vouch for a second factor. */
export interface RequestSession {
  sessionId: string;
  staffUserId: number | null;
  secondFactorAt: Date | null;
}

/**
 * Whether the current password alone may set a new one: not for a user with a second factor
 * (where their policy asks for one), unless the request's session is theirs and passed a second
 * factor within the step-up's minutes. Whoever holds only the password cannot take the account.
 */
async function passwordAloneMayChange(
  ctx: AppContext,
  user: StaffUser,
  session: RequestSession | undefined,
): Promise<boolean> {
  if (session?.staffUserId === user.id && isRecentSecondFactor(ctx, session.secondFactorAt)) return true;
  const access = await accessAfterPassword(ctx, user, await tenantOf(ctx, user));
  return access.accessType !== 'SecondFactorPending';
}

/**
 * A change by current password that needs a second factor first: refused before the password is
 * looked at, after the same work as an unknown user's, so the answer tells nothing of the password.
 */
async function refuseWithoutSecondFactor(
  ctx: AppContext,
  user: StaffUser,
  change: { currentPassword: string },
  ip: string,
  session: RequestSession | undefined,
): Promise<never> {
  await verifyPassword(undefined, change.currentPassword);
  await ctx.audit.record({
    event: `${user.kind}.password.change`,
    outcome: 'failure',
    actor: `${user.kind}:${user.id}`,
    tenantId: user.tenantId,
    ip,
    detail: { reason: 'no recent second factor' },
  });
  throw session?.staffUserId === user.id ? refuse('secondFactorStale') : refuse('wrongCurrentPassword');
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
  const now = ctx.clock.now();
  const ended = await storePassword(
    ctx.db,
    {
      user,
      passwordHash: await hashPassword(newPassword),
      now,
      counts: rules.counts,
      whileAsChecked: rules.whileAsChecked,
      keptSessionId: setting.keptSessionId,
    },
    audited,
  );
  if (ended === undefined) return false;
  await mailSecurityNotice(ctx, user, { kind: 'password-changed' }, { at: now, ip: setting.ip });
  return true;
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
 * same budget as a sign-in (and, for a user with a second factor, only in a session that passed one
 * recently). `session` is the request's, which stays signed in.
 */
export async function changePassword(
  ctx: AppContext,
  kind: StaffKind,
  change: PasswordChange,
  ip: string,
  session?: RequestSession,
): Promise<void> {
  const keptSessionId = session?.sessionId;
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

  const named = await findEnabledUser(ctx, kind, change.username);
  if (named !== undefined && !(await passwordAloneMayChange(ctx, named, session))) {
    return refuseWithoutSecondFactor(ctx, named, change, ip, session);
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
