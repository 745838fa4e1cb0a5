import type { StaffKind, StaffSecondFactorPolicy } from '@entry/domain';
import type { AppContext } from '../context.ts';
import type { Database } from '../db/index.ts';
import { type FactorsReset, findFactors, resetFactors } from '../stores/second-factors.ts';
import { queueMail } from './mail.ts';
import { secondFactorPolicyOf } from './second-factors.ts';
import { endingDepsOf, recordEndings } from './session-endings.ts';
import { staffMailOf } from './staff-mail.ts';
import { existingStaffUser } from './staff-users.ts';
import { subscriptionTokenKey } from './subscriptions-token.ts';

/** An operator's view and reset of a user's second factors, apart from the sign-in path. */

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
