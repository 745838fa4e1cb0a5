import type { AuthTokenResult, StaffKind } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { findStaffUser, type StaffUser } from '../stores/staff-users.ts';
import { isPasswordExpired } from './password-age.ts';
import { verifyPassword } from './passwords.ts';
import { accessAfterPassword, type PasswordAccess, tenantOf } from './second-factors.ts';
import type { NewSession } from './sessions.ts';
import {
  judgeAttempt,
  refuseLockedAttempt,
  refuseWrongAttempt,
  reserveAttempt,
  type StaffAttempt,
  settleAttempt,
} from './staff-attempts.ts';
import { normaliseUsername } from './staff-users.ts';

/** The enabled user of that kind and username, as stored. */
export async function findEnabledUser(
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

export interface PasswordCheck {
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

/** A password checked right: its attempt, still to be settled, and the row it was checked against. */
interface RightPassword {
  attempt: StaffAttempt;
  user: StaffUser;
}

/**
 * Checks a username and password, the attempt paid for first. An unknown or disabled user costs
 * the same hashing work and answers as a wrong password; a locked account, or one whose budget
 * attempts in flight have spent, is refused before its password is looked at. Answers the right
 * password's attempt, its reserved place still taken. When the client has gone before a hashing
 * thread takes the check, it rejects with a `ClientGoneError` and gives the place back.
 */
export async function checkPassword(check: PasswordCheck): Promise<RightPassword> {
  const { ctx, kind, username, password, ip, event, clientGone } = check;
  const payer = { budget: 'password', kind, username: normaliseUsername(username) } as const;
  const reservation = await reserveAttempt(ctx, payer, { event, ip });
  if (!reservation.paid) {
    await verifyPassword(undefined, password, clientGone);
    if (reservation.user === undefined) {
      await ctx.audit.record({
        event,
        outcome: 'failure',
        actor: null,
        ip,
        detail: { reason: 'unknown user' },
      });
      throw refuse('invalidSignIn');
    }
    return refuseLockedAttempt(ctx, 'password', reservation.user, { event, ip });
  }
  const { attempt } = reservation;
  const matches = await judgeAttempt(ctx, attempt, () =>
    Promise.all([
      verifyPassword(attempt.reserved.passwordHash, password, clientGone),
      check.whileHashing?.(attempt.reserved),
    ]).then(([verified]) => verified),
  );
  if (matches) return { attempt, user: attempt.reserved };
  return refuseWrongAttempt(ctx, attempt, 'wrong password', () => refuse('invalidSignIn'));
}

/** A right password that proves nothing: the user was disabled or the password changed during the check. */
export async function refuseChangedDuringCheck(check: PasswordCheck, reserved: StaffUser): Promise<never> {
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
  const { attempt, user } = await checkPassword(check);
  const actor = `${kind}:${user.id}`;
  const { passwordExpired, access: granted } = await (terms ?? rightPasswordTerms(ctx, user));
  // A user with a second factor passes it first: the password change then needs that factor.
  if (passwordExpired && granted.accessType !== 'SecondFactorPending') {
    if (!(await settleAttempt(ctx, attempt))) return refuseChangedDuringCheck(check, user);
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
  const audited = ctx.audit.rowOf({
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
  if (!(await settleAttempt(ctx, attempt, { ...reserved.rows(session), auditRows: [audited] }))) {
    return refuseChangedDuringCheck(check, user);
  }
  return reserved.firstPair(session, {
    consumerName: null,
    staffName: user.displayName,
    launchedByName: null,
  });
}
