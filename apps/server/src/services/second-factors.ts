import {
  type AccessType,
  type AuthTokenResult,
  type EnrolmentResult,
  type SecondFactors,
  type StaffSecondFactorPolicy,
  stepUpMinutes,
  type TotpEnrolment,
} from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import {
  claimTotpStep,
  findFactors,
  findTotp,
  hasSecondFactor,
  removeFactor,
  replaceRecoveryCodes,
  startTotp,
  useRecoveryCode,
} from '../stores/second-factors.ts';
import { findStaffUserById, type StaffUser } from '../stores/staff-users.ts';
import { findTenantById, type TenantRow } from '../stores/tenants.ts';
import { isPasswordExpired } from './password-age.ts';
import {
  hashRecoveryCode,
  matchingTotpStep,
  newRecoveryCodes,
  newTotpSecret,
  openSecret,
  otpauthUri,
  qrCodeSvg,
  sealSecret,
} from './second-factor-secrets.ts';
import type { SessionPrincipal } from './sessions.ts';
import {
  actorOf,
  judgeAttempt,
  refuseLockedAttempt,
  refuseWrongAttempt,
  reserveAttempt,
  type StaffAttempt,
  settleAttempt,
} from './staff-attempts.ts';
import { mailSecurityNotice, type SecondFactorMethod } from './staff-mail.ts';

/**
 * Staff second factors (docs/rules.md#staff-second-factors): who is asked for one, the restricted
 * access a password alone gives, the second step and step-up, and the authenticator app and
 * recovery codes. Passkeys use the same policy, budget and completion.
 */

type StaffOf = Pick<StaffUser, 'kind' | 'tenantId'>;

/** Admins always need a second factor; customer users as their tenant says (absent: optional). */
function policyUnder(user: StaffOf, tenant: TenantRow | undefined): StaffSecondFactorPolicy {
  if (user.kind === 'admin' || user.tenantId === null) return 'required';
  return tenant?.settings.staffSecondFactor ?? 'optional';
}

/** The user's organization as stored; an admin has none. */
export const tenantOf = (ctx: Pick<AppContext, 'db'>, user: StaffOf) =>
  user.tenantId === null ? Promise.resolve(undefined) : findTenantById(ctx.db, user.tenantId);

export async function secondFactorPolicyOf(
  ctx: Pick<AppContext, 'db'>,
  user: StaffOf,
): Promise<StaffSecondFactorPolicy> {
  return policyUnder(user, await tenantOf(ctx, user));
}

/** The access a session gets from a password alone. */
export interface PasswordAccess {
  accessType: AccessType;
  hasRestrictedAccess: boolean;
  roleId: number | null;
}

export const fullAccessType = (user: StaffOf): AccessType => (user.kind === 'admin' ? 'Admin' : 'Customer');

/**
 * A user with a factor (and a policy other than off) must pass it; one without where the policy
 * requires one must enrol one; everyone else gets full access. `tenant` is the user's, as read.
 */
export async function accessAfterPassword(
  ctx: AppContext,
  user: StaffOf & Pick<StaffUser, 'id' | 'roleId'>,
  tenant: TenantRow | undefined,
): Promise<PasswordAccess> {
  const policy = policyUnder(user, tenant);
  const hasFactor = await hasSecondFactor(ctx.db, user.id);
  if (policy !== 'off' && hasFactor) {
    return { accessType: 'SecondFactorPending', hasRestrictedAccess: true, roleId: null };
  }
  if (policy === 'required') {
    return { accessType: 'SecondFactorEnrolment', hasRestrictedAccess: true, roleId: null };
  }
  return fullAccessOf(user);
}

const fullAccessOf = (user: StaffOf & Pick<StaffUser, 'roleId'>): PasswordAccess => ({
  accessType: fullAccessType(user),
  hasRestrictedAccess: false,
  roleId: user.roleId,
});

/** The staff user a session belongs to; a launched session has none and may not touch factors. */
export async function staffUserOf(ctx: AppContext, principal: SessionPrincipal): Promise<StaffUser> {
  if (principal.staffUserId === null) throw refuse('notPermitted');
  const user = await findStaffUserById(ctx.db, principal.staffUserId);
  if (user === undefined || user.disabled) throw refuse('notAuthorized');
  return user;
}

/**
 * Pays for a second-factor try of a user (the session's, or a passkey's owner): a disabled or
 * unknown one is refused as not authorized, a locked budget with when to try again, before
 * anything is compared. The reserved row is the user the try is judged for.
 */
export async function reserveSecondFactorAttempt(
  ctx: AppContext,
  user: Pick<StaffUser, 'id' | 'kind'>,
  method: SecondFactorMethod,
  ip: string,
): Promise<StaffAttempt> {
  const terms = { event: `${user.kind}.second-factor`, ip, detail: { method } };
  const reservation = await reserveAttempt(ctx, { budget: 'second-factor', userId: user.id }, terms);
  if (reservation.paid) return reservation.attempt;
  if (reservation.user === undefined) throw refuse('notAuthorized');
  return refuseLockedAttempt(ctx, 'second-factor', reservation.user, terms);
}

/**
 * A second factor shown in this session: it gets full access (a second step, a first enrolment)
 * or stays full (a step-up), with the factor's time recorded, and a new token pair; its earlier
 * refresh tokens stop working. A second step after a password past its maximum age gets only
 * `PasswordExpired`, which the password change accepts.
 */
export async function completeSecondFactor(
  ctx: AppContext,
  principal: SessionPrincipal,
  user: StaffUser,
  done: { method: SecondFactorMethod; ip: string },
): Promise<AuthTokenResult> {
  const passwordExpired =
    principal.accessType === 'SecondFactorPending' &&
    isPasswordExpired(user, await tenantOf(ctx, user), ctx.clock.now());
  const access = passwordExpired
    ? { accessType: 'PasswordExpired' as const, hasRestrictedAccess: true, roleId: null }
    : fullAccessOf(user);
  const pair = await ctx.sessions.upgradeSession(principal.sessionId, {
    ...access,
    secondFactorAt: ctx.clock.now(),
  });
  await ctx.audit.record({
    event: `${user.kind}.second-factor`,
    outcome: 'success',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip: done.ip,
    detail: {
      method: done.method,
      sessionId: principal.sessionId,
      step: principal.hasRestrictedAccess ? principal.accessType : 'step-up',
      ...(passwordExpired ? { passwordExpired: true } : {}),
    },
  });
  return pair;
}

/** Whether a second factor used at `at` is recent enough for a step-up: within `stepUpMinutes`. */
export function isRecentSecondFactor(ctx: Pick<AppContext, 'clock'>, at: Date | null): boolean {
  return at !== null && ctx.clock.now().getTime() - at.getTime() <= stepUpMinutes * 60_000;
}

/** Refuses, asking for a step-up, unless a second factor was used in this session within `stepUpMinutes`. */
export function assertRecentSecondFactor(ctx: AppContext, principal: SessionPrincipal): void {
  if (!isRecentSecondFactor(ctx, principal.secondFactorAt)) throw refuse('secondFactorStale');
}

/** What a permitted change of a user's factors found. */
export interface FactorChange {
  /** The calling staff user. */
  user: StaffUser;
  /** The user already has a factor: an added one is not the first, and comes without recovery codes. */
  hasFactor: boolean;
  /** The policy requires a factor: a removal must keep one. */
  mustKeepAFactor: boolean;
}

/**
 * A change the session's user makes to their factors: refused where the policy is off; a user
 * who has a factor shows one first (step-up), so a password alone never adds or removes one.
 */
export async function assertMayChangeFactors(
  ctx: AppContext,
  principal: SessionPrincipal,
): Promise<FactorChange> {
  const user = await staffUserOf(ctx, principal);
  const [policy, hasFactor] = await Promise.all([
    secondFactorPolicyOf(ctx, user),
    hasSecondFactor(ctx.db, user.id),
  ]);
  if (policy === 'off') throw refuse('secondFactorsOff');
  if (hasFactor) assertRecentSecondFactor(ctx, principal);
  return { user, hasFactor, mustKeepAFactor: policy === 'required' };
}

/** What the security and second-step pages show of the calling user's factors. */
export async function listSecondFactors(
  ctx: AppContext,
  principal: SessionPrincipal,
): Promise<SecondFactors> {
  const user = await staffUserOf(ctx, principal);
  const [policy, factors] = await Promise.all([
    secondFactorPolicyOf(ctx, user),
    findFactors(ctx.db, user.id),
  ]);
  return {
    policy,
    totp: { enrolled: factors.totp?.confirmedAt != null },
    passkeys: factors.passkeys.map((passkey) => ({
      id: passkey.credentialId,
      name: passkey.name,
      createdAt: passkey.createdAt.toISOString(),
      lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
      backedUp: passkey.backedUp,
    })),
    recoveryCodesLeft: factors.recoveryCodesLeft,
    secondFactorAt: principal.secondFactorAt?.toISOString() ?? null,
  };
}

/** The audit row of a change a user made to their factors: `{kind}.second-factor.{change}`. */
export function auditFactorChange(
  ctx: AppContext,
  user: Pick<StaffUser, 'kind' | 'id' | 'tenantId'>,
  change: 'add' | 'remove' | 'rename' | 'recovery-codes',
  ip: string,
  detail?: Record<string, unknown>,
): Promise<void> {
  return ctx.audit.record({
    event: `${user.kind}.second-factor.${change}`,
    outcome: 'success',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip,
    ...(detail === undefined ? {} : { detail }),
  });
}

/** A factor added or removed: audited, and mailed to the user, who must hear of it if it was not them. */
export async function recordFactorAddedOrRemoved(
  ctx: AppContext,
  user: StaffUser,
  change: 'add' | 'remove',
  factor: { method: SecondFactorMethod; name?: string },
  ip: string,
  detail: Record<string, unknown> = {},
): Promise<void> {
  await auditFactorChange(ctx, user, change, ip, { method: factor.method, ...detail });
  const kind = change === 'add' ? 'factor-added' : 'factor-removed';
  await mailSecurityNotice(ctx, user, { kind, ...factor }, { at: ctx.clock.now(), ip });
}

/** Starts an authenticator app: its secret, sealed until confirmed by a first code. */
export async function startTotpEnrolment(
  ctx: AppContext,
  principal: SessionPrincipal,
): Promise<TotpEnrolment> {
  const { user } = await assertMayChangeFactors(ctx, principal);
  const secret = newTotpSecret();
  const started = await startTotp(ctx.db, user.id, sealSecret(ctx.secondFactorKey, secret), ctx.clock.now());
  if (!started) throw refuse('totpAlreadyEnrolled');
  const uri = otpauthUri(secret, user.username);
  return { secret, otpauthUri: uri, qrCodeSvg: qrCodeSvg(uri) };
}

/** New recovery codes for the user, the earlier ones void; the codes in clear are shown once. */
export async function issueRecoveryCodes(ctx: AppContext, user: StaffUser): Promise<string[]> {
  const codes = newRecoveryCodes();
  const hashes = codes.map((code) => hashRecoveryCode(ctx.pepper, code) ?? '');
  await replaceRecoveryCodes(ctx.db, user.id, hashes, ctx.clock.now());
  return codes;
}

/**
 * Confirms the authenticator app with its first code: the session gets full access with the
 * factor just used, and a user's first factor comes with ten recovery codes.
 */
export async function confirmTotpEnrolment(
  ctx: AppContext,
  principal: SessionPrincipal,
  code: string,
  ip: string,
): Promise<EnrolmentResult> {
  const { user, hasFactor } = await assertMayChangeFactors(ctx, principal);
  const totp = await findTotp(ctx.db, user.id);
  if (totp === undefined || totp.confirmedAt !== null) throw refuse('totpNotStarted');
  const now = ctx.clock.now();
  const step = matchingTotpStep(openSecret(ctx.secondFactorKey, totp.secretSealed), code, now);
  if (step === undefined) throw refuse('wrongTotpConfirmCode');
  if (!(await claimTotpStep(ctx.db, totp, step, { at: now }))) throw refuse('totpNotStarted');
  const recoveryCodes = hasFactor ? null : await issueRecoveryCodes(ctx, user);
  await recordFactorAddedOrRemoved(ctx, user, 'add', { method: 'totp' }, ip, {
    sessionId: principal.sessionId,
  });
  const auth = await completeSecondFactor(ctx, principal, user, { method: 'totp', ip });
  return { auth, recoveryCodes };
}

/** Removes the authenticator app, unless it is the last factor of a user whose policy requires one. */
export async function removeTotp(ctx: AppContext, principal: SessionPrincipal, ip: string): Promise<void> {
  const { user, mustKeepAFactor } = await assertMayChangeFactors(ctx, principal);
  const removal = await removeFactor(ctx.db, user.id, { method: 'totp' }, mustKeepAFactor);
  if (removal === 'not-found') throw refuse('totpNotEnrolled');
  if (removal === 'last-factor') throw refuse('lastSecondFactor');
  await recordFactorAddedOrRemoved(ctx, user, 'remove', { method: 'totp' }, ip);
}

/** New recovery codes for a user who has a factor; the earlier ones stop working. */
export async function regenerateRecoveryCodes(
  ctx: AppContext,
  principal: SessionPrincipal,
  ip: string,
): Promise<string[]> {
  const { user, hasFactor } = await assertMayChangeFactors(ctx, principal);
  if (!hasFactor) throw refuse('noSecondFactor');
  const codes = await issueRecoveryCodes(ctx, user);
  await auditFactorChange(ctx, user, 'recovery-codes', ip);
  return codes;
}

/** Whether `code` is the user's authenticator code now; a step once accepted never is again. */
async function totpCodeHolds(ctx: AppContext, user: StaffUser, code: string): Promise<boolean> {
  const totp = await findTotp(ctx.db, user.id);
  if (totp === undefined || totp.confirmedAt === null) return false;
  const step = matchingTotpStep(openSecret(ctx.secondFactorKey, totp.secretSealed), code, ctx.clock.now());
  return step !== undefined && claimTotpStep(ctx.db, totp, step, undefined);
}

/** Uses a recovery code once; its use is audited and mailed to the user. */
async function recoveryCodeHolds(
  ctx: AppContext,
  user: StaffUser,
  code: string,
  ip: string,
): Promise<boolean> {
  const hash = hashRecoveryCode(ctx.pepper, code);
  if (hash === null || !(await useRecoveryCode(ctx.db, user.id, hash, ctx.clock.now()))) return false;
  const { recoveryCodesLeft } = await findFactors(ctx.db, user.id);
  await ctx.audit.record({
    event: `${user.kind}.second-factor.recovery-code.used`,
    outcome: 'success',
    actor: actorOf(user),
    tenantId: user.tenantId,
    ip,
    detail: { left: recoveryCodesLeft },
  });
  await mailSecurityNotice(
    ctx,
    user,
    { kind: 'recovery-code-used', left: recoveryCodesLeft },
    { at: ctx.clock.now(), ip },
  );
  return true;
}

/**
 * The second step after a password, or a step-up of a full session, with an authenticator code or
 * a recovery code: the try is paid for first, and a wrong one counts toward the second factor's lock.
 */
export async function signInWithSecondFactor(
  ctx: AppContext,
  principal: SessionPrincipal,
  input: { method: 'totp' | 'recovery'; code: string },
  ip: string,
): Promise<AuthTokenResult> {
  // The try's reservation reads the session's user: no read of it before.
  if (principal.staffUserId === null || principal.scope === 'consumer') throw refuse('notPermitted');
  const userOfSession = { id: principal.staffUserId, kind: principal.scope };
  const attempt = await reserveSecondFactorAttempt(ctx, userOfSession, input.method, ip);
  const user = attempt.reserved;
  const holds = await judgeAttempt(ctx, attempt, () =>
    input.method === 'totp'
      ? totpCodeHolds(ctx, user, input.code)
      : recoveryCodeHolds(ctx, user, input.code, ip),
  );
  if (!holds) {
    return refuseWrongAttempt(ctx, attempt, `wrong ${input.method} code`, () =>
      refuse('wrongSecondFactorCode'),
    );
  }
  if (!(await settleAttempt(ctx, attempt))) throw refuse('notAuthorized');
  return completeSecondFactor(ctx, principal, user, { method: input.method, ip });
}
