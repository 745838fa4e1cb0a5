import type {
  AuthTokenResult,
  EnrolmentResult,
  PasskeyOptionsResult,
  PasskeyRegistrationRequest,
  PasskeySignInRequest,
} from '@entry/domain';
import type { AppContext } from '../context.ts';
import type { StaffKind } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import { removeFactor } from '../stores/second-factors.ts';
import {
  findPasskey,
  insertPasskey,
  listPasskeys,
  recordPasskeyUse,
  renamePasskey,
} from '../stores/staff-passkeys.ts';
import { hashesEqual, keyedHash } from './keyed-hash.ts';
import {
  assertMayChangeFactors,
  auditFactorChange,
  completeSecondFactor,
  fullAccessType,
  issueRecoveryCodes,
  recordFactorAddedOrRemoved,
  staffUserOf,
} from './second-factors.ts';
import type { NewSession, SessionPrincipal } from './sessions.ts';
import {
  actorOf,
  judgeSecondFactorTry,
  payForSecondFactorTry,
  refuseWrongSecondFactorTry,
  type SecondFactorTry,
  settleSecondFactor,
} from './staff-attempts.ts';
import {
  authenticationOptions,
  parseAssertion,
  registrationOptions,
  takeChallenge,
  verifyAssertion,
  verifyRegistration,
} from './webauthn.ts';

/**
 * Staff passkeys (docs/rules.md#staff-second-factors): registered, renamed and removed under the
 * same policy and step-up as the other factors; used to sign in alone (a discoverable passkey
 * with user verification is both factors), as the second step after a password, or to step up.
 */

/**
 * The user handle a user's passkeys carry: opaque bytes, the same for every passkey of the user
 * (an authenticator keeps one discoverable passkey per account), naming nobody to whoever reads it.
 */
const userHandleOf = (ctx: AppContext, userId: number) =>
  Buffer.from(keyedHash(ctx.pepper, `passkey-user:${userId}`), 'hex');

/** The options to create a passkey for the calling user, none of the user's passkeys again. */
export async function passkeyRegistrationOptions(
  ctx: AppContext,
  principal: SessionPrincipal,
): Promise<PasskeyOptionsResult> {
  const { user } = await assertMayChangeFactors(ctx, principal);
  const { challengeId, options } = await registrationOptions(
    ctx,
    { kind: user.kind, sessionId: principal.sessionId },
    { handle: userHandleOf(ctx, user.id), username: user.username, displayName: user.displayName },
    await listPasskeys(ctx.db, user.id),
  );
  return { challengeId, options: { ...options } };
}

/**
 * Registers the passkey the authenticator created for this session's challenge: the session gets
 * full access with the factor just used, and a user's first factor comes with recovery codes.
 */
export async function registerPasskey(
  ctx: AppContext,
  principal: SessionPrincipal,
  request: PasskeyRegistrationRequest,
  ip: string,
): Promise<EnrolmentResult> {
  const { user, hasFactor } = await assertMayChangeFactors(ctx, principal);
  const challenge = await takeChallenge(ctx, request.challengeId, {
    purpose: 'registration',
    kind: user.kind,
    sessionId: principal.sessionId,
  });
  if (challenge === undefined) throw refuse('passkeyChallengeInvalid');
  const created = await verifyRegistration(ctx.config, request.response, challenge);
  if (created === undefined) {
    await ctx.audit.record({
      event: `${user.kind}.second-factor.add`,
      outcome: 'failure',
      actor: actorOf(user),
      tenantId: user.tenantId,
      ip,
      detail: { method: 'passkey', reason: 'not verified' },
    });
    throw refuse('passkeyRegistrationNotVerified');
  }
  const now = ctx.clock.now();
  const added = await insertPasskey(ctx.db, {
    ...created,
    staffUserId: user.id,
    name: request.name,
    createdAt: now,
  });
  if (!added) throw refuse('passkeyAlreadyRegistered');
  const recoveryCodes = hasFactor ? null : await issueRecoveryCodes(ctx, user);
  await recordFactorAddedOrRemoved(ctx, user, 'add', { method: 'passkey', name: request.name }, ip, {
    passkeyId: created.credentialId,
    sessionId: principal.sessionId,
  });
  const auth = await completeSecondFactor(ctx, principal, user, { method: 'passkey', ip });
  return { auth, recoveryCodes };
}

/**
 * A challenge to sign in with a passkey: without a session, any discoverable passkey of the
 * relying party (usernameless); with one (a second step or a step-up), one of its user's passkeys,
 * the challenge bound to that session.
 */
export async function passkeySignInOptions(
  ctx: AppContext,
  kind: StaffKind,
  principal: SessionPrincipal | undefined,
): Promise<PasskeyOptionsResult> {
  const allowed =
    principal === undefined ? [] : await listPasskeys(ctx.db, (await staffUserOf(ctx, principal)).id);
  const { challengeId, options } = await authenticationOptions(
    ctx,
    { kind, sessionId: principal?.sessionId ?? null },
    allowed,
  );
  return { challengeId, options: { ...options } };
}

/** Why a passkey try failed, as audited, and the refusal that answers it. */
interface Failure {
  reason: string;
  refusal: 'passkeyChallengeInvalid' | 'passkeyNotVerified';
}

/** Refuses an assertion whose passkey is not one this call may take, auditing the try. */
async function refuseUnknownPasskey(
  ctx: AppContext,
  kind: StaffKind,
  principal: SessionPrincipal | undefined,
  ip: string,
): Promise<never> {
  await ctx.audit.record({
    event: `${kind}.second-factor`,
    outcome: 'failure',
    actor: principal?.staffUserId == null ? null : `${kind}:${principal.staffUserId}`,
    tenantId: principal?.tenantId ?? null,
    ip,
    detail: { method: 'passkey', reason: 'unknown passkey' },
  });
  throw refuse('passkeyNotRegistered');
}

/**
 * Signs in with a passkey: alone (no session: a new full session), as the second step of a
 * pending session, or as a step-up of a full one. The try is paid for from the account's budget
 * before the challenge is taken and the assertion checked; a failed one counts toward its lock.
 */
export async function signInWithPasskey(
  ctx: AppContext,
  kind: StaffKind,
  principal: SessionPrincipal | undefined,
  request: PasskeySignInRequest,
  ip: string,
): Promise<AuthTokenResult> {
  const assertion = parseAssertion(request.response);
  const found = await findPasskey(ctx.db, assertion.id);
  if (
    found === undefined ||
    found.kind !== kind ||
    (principal !== undefined && principal.staffUserId !== found.passkey.staffUserId)
  ) {
    return refuseUnknownPasskey(ctx, kind, principal, ip);
  }
  const { passkey } = found;
  const paid = await payForSecondFactorTry(
    ctx,
    { id: passkey.staffUserId, kind, tenantId: found.tenantId },
    { ip, method: 'passkey' },
  );
  const judge = async (): Promise<Failure | undefined> => {
    const challenge = await takeChallenge(ctx, request.challengeId, {
      purpose: 'authentication',
      kind,
      sessionId: principal?.sessionId ?? null,
    });
    if (challenge === undefined) {
      return { reason: 'challenge used, expired or of another session', refusal: 'passkeyChallengeInvalid' };
    }
    const handle = userHandleOf(ctx, passkey.staffUserId).toString('base64url');
    const { userHandle } = assertion.response;
    if (userHandle !== undefined && !hashesEqual(userHandle, handle)) {
      return { reason: 'user handle of another user', refusal: 'passkeyNotVerified' };
    }
    const verified = await verifyAssertion(ctx.config, assertion, challenge, passkey);
    if (verified === undefined) return { reason: 'not verified', refusal: 'passkeyNotVerified' };
    const recorded = await recordPasskeyUse(ctx.db, { passkey, ...verified, at: ctx.clock.now() });
    return recorded ? undefined : { reason: 'counter used meanwhile', refusal: 'passkeyNotVerified' };
  };
  const failure = await judgeSecondFactorTry(ctx, paid, judge);
  if (failure !== undefined) {
    return refuseWrongSecondFactorTry(ctx, paid, `passkey ${failure.reason}`, () => refuse(failure.refusal));
  }
  if (principal !== undefined) {
    if (!(await settleSecondFactor(ctx, paid))) throw refuse('notAuthorized');
    return completeSecondFactor(ctx, principal, paid.reserved, { method: 'passkey', ip });
  }
  return openPasskeySession(ctx, paid, ip);
}

/**
 * A passkey alone opens a full session, its second factor used now. The try's settlement, the
 * session and its audit rows commit together in one statement, as a password sign-in's do.
 */
async function openPasskeySession(
  ctx: AppContext,
  paid: SecondFactorTry,
  ip: string,
): Promise<AuthTokenResult> {
  const user = paid.reserved;
  const session: NewSession = {
    scope: user.kind,
    tenantId: user.tenantId,
    staffUserId: user.id,
    accessType: fullAccessType(user),
    hasRestrictedAccess: false,
    roleId: user.roleId,
    secondFactorAt: ctx.clock.now(),
  };
  const reserved = ctx.sessions.reserve();
  const audited = [
    { event: `${user.kind}.sign-in`, detail: { sessionId: reserved.id, method: 'passkey' } },
    {
      event: `${user.kind}.second-factor`,
      detail: { sessionId: reserved.id, method: 'passkey', step: 'sign-in' },
    },
  ].map((entry) =>
    ctx.audit.insertOf({ ...entry, outcome: 'success', actor: actorOf(user), tenantId: user.tenantId, ip }),
  );
  if (!(await settleSecondFactor(ctx, paid, [...reserved.inserts(session), ...audited]))) {
    throw refuse('notAuthorized');
  }
  return reserved.firstPair(session, {
    consumerName: null,
    staffName: user.displayName,
    launchedByName: null,
  });
}

/** Renames one of the calling user's passkeys. */
export async function renameUserPasskey(
  ctx: AppContext,
  principal: SessionPrincipal,
  passkeyId: string,
  name: string,
  ip: string,
): Promise<void> {
  const { user } = await assertMayChangeFactors(ctx, principal);
  if (!(await renamePasskey(ctx.db, user.id, passkeyId, name))) throw refuse('passkeyNotFound');
  await auditFactorChange(ctx, user, 'rename', ip, { method: 'passkey', passkeyId });
}

/** Removes one of the calling user's passkeys, unless it is the last factor the user's policy requires. */
export async function removeUserPasskey(
  ctx: AppContext,
  principal: SessionPrincipal,
  passkeyId: string,
  ip: string,
): Promise<void> {
  const { user, mustKeepAFactor } = await assertMayChangeFactors(ctx, principal);
  const removal = await removeFactor(
    ctx.db,
    user.id,
    { method: 'passkey', credentialId: passkeyId },
    mustKeepAFactor,
  );
  if (removal === 'not-found') throw refuse('passkeyNotFound');
  if (removal === 'last-factor') throw refuse('lastSecondFactor');
  await recordFactorAddedOrRemoved(ctx, user, 'remove', { method: 'passkey' }, ip, { passkeyId });
}
