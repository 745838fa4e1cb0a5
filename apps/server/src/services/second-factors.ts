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
import type { Database } from '../db/index.ts';
import type { StaffKind } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import {
  claimTotpStep,
  type FactorsReset,
  findFactors,
  findTotp,
  hasSecondFactor,
  removeFactor,
  replaceRecoveryCodes,
  resetFactors,
  startTotp,
  useRecoveryCode,
} from '../stores/second-factors.ts';
import { findStaffUserById, type StaffUser } from '../stores/staff-users.ts';
import { findTenantById, type TenantRow } from '../stores/tenants.ts';
import { queueMail } from './mail.ts';
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
import { endingDepsOf, recordEndings } from './session-endings.ts';
import type { SessionPrincipal } from './sessions.ts';
import {
  actorOf,
  judgeSecondFactorTry,
  payForSecondFactorTry,
  refuseWrongSecondFactorTry,
  settleSecondFactor,
} from './staff-attempts.ts';
import { mailSecurityNotice, type SecondFactorMethod, staffMailOf } from './staff-mail.ts';
import { existingStaffUser } from './staff-users.ts';
import { subscriptionTokenKey } from './subscriptions-token.ts';

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
  const user = await staffUserOf(ctx, principal);
  const paid = await payForSecondFactorTry(ctx, user, { ip, method: input.method });
  const holds = await judgeSecondFactorTry(ctx, paid, () =>
    input.method === 'totp'
      ? totpCodeHolds(ctx, user, input.code)
      : recoveryCodeHolds(ctx, user, input.code, ip),
  );
  if (!holds) return refuseWrongSecondFactorTry(ctx, paid, `wrong ${input.method} code`);
  if (!(await settleSecondFactor(ctx, paid))) throw refuse('notAuthorized');
  return completeSecondFactor(ctx, principal, user, { method: input.method, ip });
}

/** A user's factors as an operator sees them. */
export interface FactorListing {
  kind: StaffKind;
  username: string;
  policy: StaffSecondFactorPolicy;
  authenticatorApp: 'confirmed' | 'unconfirmed' | 'none';
  passkeys: { name: string; createdAt: string; lastUsedAt: string | null; backedUp: boolean }[];
  recoveryCodesLeft: number;
}

export async function listFactorsOfUser(
  db: Database,
  kind: StaffKind,
  username: string,
): Promise<FactorListing> {
  const user = await existingStaffUser(db, kind, username);
  const [policy, factors] = await Promise.all([secondFactorPolicyOf({ db }, user), findFactors(db, user.id)]);
  let authenticatorApp: FactorListing['authenticatorApp'] = 'none';
  if (factors.totp !== undefined)
    authenticatorApp = factors.totp.confirmedAt === null ? 'unconfirmed' : 'confirmed';
  return {
    kind,
    username: user.username,
    policy,
    authenticatorApp,
    passkeys: factors.passkeys.map((passkey) => ({
      name: passkey.name,
      createdAt: passkey.createdAt.toISOString(),
      lastUsedAt: passkey.lastUsedAt?.toISOString() ?? null,
      backedUp: passkey.backedUp,
    })),
    recoveryCodesLeft: factors.recoveryCodesLeft,
  };
}

const factorsResetMailTexts = {
  subject: 'Your second factors were reset',
  body:
    'An administrator removed the second factors of your account: its authenticator app, passkeys and ' +
    'recovery codes. Your open sessions have ended. The next time you sign in you will be asked to set ' +
    'up a second factor again where your account needs one.\n\nIf you did not ask for this, tell your ' +
    'administrator at once.',
} as const;

/** What an operator command gives a reset: its database, clock, audit and the pepper. */
export type OperatorDeps = Pick<AppContext, 'db' | 'clock' | 'audit' | 'pepper' | 'config'>;

/**
 * An operator removes every factor of a user (a lost phone and codes): the user's sessions end,
 * and the user re-enrols at the next sign-in where the policy asks for a factor. Audited with the
 * operator, and mailed to the user.
 */
export async function resetFactorsOfUser(
  deps: OperatorDeps,
  kind: StaffKind,
  username: string,
  actor: string,
): Promise<FactorsReset> {
  const user = await existingStaffUser(deps.db, kind, username);
  const now = deps.clock.now();
  const reset = await resetFactors(deps.db, user.id, now);
  await deps.audit.recordMany([
    {
      event: `${kind}.second-factor.reset`,
      outcome: 'success',
      actor,
      tenantId: user.tenantId,
      detail: {
        userId: user.id,
        totp: reset.totp,
        passkeys: reset.passkeys,
        recoveryCodes: reset.recoveryCodes,
        endedSessions: reset.endedSessionIds.length,
      },
    },
    ...reset.endedSessionIds.map((sessionId) => ({
      event: `${kind}.session.end`,
      outcome: 'revoked' as const,
      actor,
      tenantId: user.tenantId,
      detail: { sessionId, cause: 'second-factors-reset', userId: user.id },
    })),
  ]);
  // The sessions the user launched end with theirs.
  await recordEndings(endingDepsOf(deps), { sessionIds: reset.endedSessionIds });
  const mail = await staffMailOf(
    { db: deps.db, config: deps.config, subscriptionKey: subscriptionTokenKey(deps.pepper) },
    user,
    { kind: 'staff-factors-reset', subject: factorsResetMailTexts.subject, text: factorsResetMailTexts.body },
  );
  await queueMail(deps.db, mail, now);
  return reset;
}
