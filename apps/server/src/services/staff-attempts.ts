import type { LockPolicy } from '@entry/domain';
import type { AppContext } from '../context.ts';
import type { StatementPart } from '../db/sql.ts';
import { type ApiError, refuse } from '../refusals.ts';
import {
  giveBackSecondFactorTry,
  recordWrongSecondFactorTry,
  reserveSecondFactorTry,
  settleSecondFactorTry,
} from '../stores/second-factor-tries.ts';
import { findStaffUserById, type StaffUser, type WrongTry } from '../stores/staff-users.ts';
import { mailSecurityNotice, type SecondFactorMethod } from './staff-mail.ts';

/**
 * A staff account's attempts: a password, and second-factor tries (authenticator and recovery
 * codes, passkey answers), each from a budget of its own paid before the attempt is judged. A
 * wrong attempt keeps its place; the one that reaches the threshold locks that budget and mails
 * the owner; a right one gives its place back; one never judged is given back.
 */

/** 10 wrong attempts lock for 15 minutes, doubling up to 24 hours: for passwords and second factors alike. */
export const staffLockPolicy: LockPolicy = { threshold: 10 };

export const actorOf = (user: Pick<StaffUser, 'kind' | 'id'>) => `${user.kind}:${user.id}`;

/** A wrong attempt's end: its audit row, the owner's mail when it locked the account now, and the refusal. */
export async function refuseWrongAttempt(
  ctx: AppContext,
  attempt: {
    user: StaffUser;
    budget: 'password' | 'second-factor';
    wrong: WrongTry;
    event: string;
    ip: string;
    detail: Record<string, unknown>;
  },
  refusal: () => ApiError,
): Promise<never> {
  const { user, wrong, ip } = attempt;
  const now = ctx.clock.now();
  await ctx.audit.record({
    event: attempt.event,
    outcome: wrong.locks ? 'locked' : 'failure',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip,
    detail: attempt.detail,
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

/** A second factor's try, paid for before it is judged. */
export interface SecondFactorTry {
  reserved: StaffUser;
  event: string;
  ip: string;
  method: SecondFactorMethod;
}

/**
 * Pays for one second-factor try from the account's second-factor budget. A locked one is refused,
 * with when to try again, before anything is compared.
 */
export async function payForSecondFactorTry(
  ctx: AppContext,
  user: Pick<StaffUser, 'id' | 'kind' | 'tenantId'>,
  attempt: { ip: string; method: SecondFactorMethod },
): Promise<SecondFactorTry> {
  const event = `${user.kind}.second-factor`;
  const now = ctx.clock.now();
  const reserved = await reserveSecondFactorTry(ctx.db, user.id, staffLockPolicy, now);
  if (reserved !== undefined) return { reserved, event, ip: attempt.ip, method: attempt.method };
  const current = await findStaffUserById(ctx.db, user.id);
  if (current === undefined || current.disabled) throw refuse('notAuthorized');
  await ctx.audit.record({
    event,
    outcome: 'locked',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip: attempt.ip,
    detail: { method: attempt.method },
  });
  throw refuse('userLocked', { retryAt: { until: current.secondFactorLockedUntil, now } });
}

/**
 * A wrong try keeps its place in the count; the one that reaches the threshold locks second-factor
 * sign-in. `refusal` answers a wrong try that does not lock (a passkey's own message, say).
 */
export async function refuseWrongSecondFactorTry(
  ctx: AppContext,
  paid: SecondFactorTry,
  reason: string,
  refusal: () => ApiError = () => refuse('wrongSecondFactorCode'),
): Promise<never> {
  const wrong = await recordWrongSecondFactorTry(ctx.db, paid.reserved, staffLockPolicy, ctx.clock.now());
  return refuseWrongAttempt(
    ctx,
    {
      user: paid.reserved,
      budget: 'second-factor',
      wrong,
      event: paid.event,
      ip: paid.ip,
      detail: { method: paid.method, reason },
    },
    refusal,
  );
}

/**
 * A right try gives its place back, with `writes` in the same transaction; answers false when the
 * user was disabled or the password changed meanwhile.
 */
export function settleSecondFactor(
  ctx: AppContext,
  paid: SecondFactorTry,
  writes: readonly StatementPart[] = [],
): Promise<boolean> {
  return settleSecondFactorTry(ctx.db, paid.reserved, writes);
}

/** A try that was paid for but never judged gives its place back. */
function giveBackSecondFactor(ctx: AppContext, paid: SecondFactorTry): Promise<void> {
  return giveBackSecondFactorTry(ctx.db, paid.reserved);
}

/** Judges a paid try with `judge`, giving its place back when judging fails for another reason than the answer. */
export function judgeSecondFactorTry<Verdict>(
  ctx: AppContext,
  paid: SecondFactorTry,
  judge: () => Promise<Verdict>,
): Promise<Verdict> {
  return judge().catch(async (error: unknown) => {
    await giveBackSecondFactor(ctx, paid);
    throw error;
  });
}
