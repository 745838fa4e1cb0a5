import type { LockPolicy, StaffKind } from '@entry/domain';
import type { ApiError } from '../api-error.ts';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import type { RowWrites } from '../stores/row-writes.ts';
import {
  giveBackSecondFactorTry,
  recordWrongSecondFactorTry,
  reserveSecondFactorTry,
  settleSecondFactorTry,
} from '../stores/second-factor-tries.ts';
import {
  findStaffUser,
  findStaffUserById,
  giveBackPasswordTry,
  recordWrongPasswordTry,
  reservePasswordTry,
  type StaffUser,
  settlePasswordTry,
} from '../stores/staff-users.ts';
import { mailSecurityNotice } from './staff-mail.ts';

/**
 * A staff account's attempts, the one way a password, an authenticator code, a recovery code and
 * a passkey answer are paid for and counted. Each budget (the password's, the second factor's) is
 * paid before the attempt is judged (`reserveAttempt`); `judgeAttempt` gives the place back when
 * judging fails for another reason than the answer; a wrong attempt keeps its place and the one
 * that reaches the threshold locks that budget and mails the owner (`refuseWrongAttempt`); a right
 * one gives its place back with the writes it leads to (`settleAttempt`); one never judged is
 * given back (`giveBackAttempt`). A locked budget is refused with `refuseLockedAttempt`.
 */

/** 10 wrong attempts lock for 15 minutes, doubling up to 24 hours: for passwords and second factors alike. */
const staffLockPolicy: LockPolicy = { threshold: 10 };

export const actorOf = (user: Pick<StaffUser, 'kind' | 'id'>) => `${user.kind}:${user.id}`;

export type StaffBudget = 'password' | 'second-factor';

/** Whose budget pays: a password names its user by (normalised) username, a second factor by id. */
export type AttemptPayer =
  | { budget: 'password'; kind: StaffKind; username: string }
  | { budget: 'second-factor'; userId: number };

/** What an attempt's audit rows say: their event, the client's address, and detail every row carries. */
export interface AttemptTerms {
  event: string;
  ip: string;
  detail?: Record<string, unknown>;
}

/** An attempt paid for and not yet settled, with the row it was reserved against. */
export interface StaffAttempt extends AttemptTerms {
  budget: StaffBudget;
  reserved: StaffUser;
}

/**
 * A reservation: the attempt paid for, or none to be had, with the enabled user whose budget is
 * locked or spent by attempts in flight (undefined when no enabled user is found).
 */
export type Reservation =
  | { paid: true; attempt: StaffAttempt }
  | { paid: false; user: StaffUser | undefined };

/**
 * Pays for one attempt from the payer's budget in one conditional update that also reads the
 * user; when none is to be had, reads the user to tell a locked budget from an unknown user.
 */
export async function reserveAttempt(
  ctx: AppContext,
  payer: AttemptPayer,
  terms: AttemptTerms,
): Promise<Reservation> {
  const now = ctx.clock.now();
  const reserved =
    payer.budget === 'password'
      ? await reservePasswordTry(ctx.db, payer, staffLockPolicy, now)
      : await reserveSecondFactorTry(ctx.db, payer.userId, staffLockPolicy, now);
  if (reserved !== undefined) return { paid: true, attempt: { ...terms, budget: payer.budget, reserved } };
  const current =
    payer.budget === 'password'
      ? await findStaffUser(ctx.db, payer.kind, payer.username)
      : await findStaffUserById(ctx.db, payer.userId);
  return { paid: false, user: current?.disabled ? undefined : current };
}

/** An attempt on a locked budget: audited as locked, refused with when that budget's lock ends. */
export async function refuseLockedAttempt(
  ctx: AppContext,
  budget: StaffBudget,
  user: StaffUser,
  terms: AttemptTerms,
): Promise<never> {
  await ctx.audit.record({
    event: terms.event,
    outcome: 'locked',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip: terms.ip,
    ...(terms.detail === undefined ? {} : { detail: terms.detail }),
  });
  const until = budget === 'password' ? user.lockedUntil : user.secondFactorLockedUntil;
  throw refuse('userLocked', { retryAt: { until, now: ctx.clock.now() } });
}

/** Judges a paid attempt with `judge`, giving its place back when judging fails for another reason than the answer. */
export function judgeAttempt<Verdict>(
  ctx: AppContext,
  attempt: StaffAttempt,
  judge: () => Promise<Verdict>,
): Promise<Verdict> {
  return judge().catch(async (error: unknown) => {
    await giveBackAttempt(ctx, attempt);
    throw error;
  });
}

/**
 * A wrong attempt keeps its place in the count; the one that reaches the threshold locks its
 * budget and mails the owner when it set the lock. Audited with `reason`; `refusal` answers a
 * wrong attempt that does not lock.
 */
export async function refuseWrongAttempt(
  ctx: AppContext,
  attempt: StaffAttempt,
  reason: string,
  refusal: () => ApiError,
): Promise<never> {
  const { reserved: user, ip } = attempt;
  const now = ctx.clock.now();
  const wrong =
    attempt.budget === 'password'
      ? await recordWrongPasswordTry(ctx.db, user, staffLockPolicy, now)
      : await recordWrongSecondFactorTry(ctx.db, user, staffLockPolicy, now);
  await ctx.audit.record({
    event: attempt.event,
    outcome: wrong.locks ? 'locked' : 'failure',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip,
    detail: { ...attempt.detail, reason },
  });
  if (!wrong.locks) throw refusal();
  if (wrong.lockedNow && wrong.lockedUntil !== null) {
    await mailSecurityNotice(
      ctx,
      user,
      { kind: 'locked', by: attempt.budget, until: wrong.lockedUntil },
      { at: now, ip },
    );
  }
  throw refuse('userLocked', { retryAt: { until: wrong.lockedUntil, now } });
}

/**
 * A right attempt gives its place back, with `writes` committing together; answers false, with
 * nothing written, when the user was disabled or the password changed during the attempt.
 */
export function settleAttempt(
  ctx: AppContext,
  attempt: StaffAttempt,
  writes: RowWrites = {},
): Promise<boolean> {
  return attempt.budget === 'password'
    ? settlePasswordTry(ctx.db, attempt.reserved, writes)
    : settleSecondFactorTry(ctx.db, attempt.reserved, writes);
}

/** An attempt that was paid for but never judged gives its place back. */
function giveBackAttempt(ctx: AppContext, attempt: StaffAttempt): Promise<void> {
  return attempt.budget === 'password'
    ? giveBackPasswordTry(ctx.db, attempt.reserved)
    : giveBackSecondFactorTry(ctx.db, attempt.reserved);
}
