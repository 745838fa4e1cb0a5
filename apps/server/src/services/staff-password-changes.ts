import type { LockState, StaffKind } from '@entry/domain';
import type { FastifyBaseLogger } from 'fastify';
import { ApiError } from '../api-error.ts';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { takeResetMail } from '../stores/reset-mail-budget.ts';
import {
  claimResetToken,
  findResetToken,
  insertResetToken,
  type PasswordChangeEnded,
  type StaffUser,
  setPassword as storePassword,
} from '../stores/staff-users.ts';
import type { AuditEntry } from './audit.ts';
import { assertStrongPassword, hashPassword, verifyPassword } from './passwords.ts';
import { accessAfterPassword, isRecentSecondFactor, tenantOf } from './second-factors.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import { settleAttempt } from './staff-attempts.ts';
import {
  checkPassword,
  findEnabledUser,
  type PasswordCheck,
  refuseChangedDuringCheck,
} from './staff-auth.ts';
import {
  mailSecurityNotice,
  mailStaffUser,
  resetPasswordUrl,
  resetTokenLifetimeMs,
  staffMailTexts,
} from './staff-mail.ts';

/**
 * A staff user's new password: the reset link asked for by mail, and the change by that link or by
 * the current password, which is checked as a sign-in checks it (staff-auth.ts).
 */

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
    ].map((entry) => ctx.audit.rowOf(entry));
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
  const { attempt, user: reserved } = await checkPassword(check).catch(asWrongCurrentPassword);
  try {
    await assertStrongPassword(change.newPassword, [reserved.username, reserved.email, reserved.displayName]);
  } catch (error) {
    await settleAttempt(ctx, attempt);
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
