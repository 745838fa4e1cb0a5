import type { StaffKind } from '@entry/domain';
import { appsOrigin } from '../config.ts';
import type { AppContext } from '../context.ts';
import type { StaffUser } from '../stores/staff-users.ts';
import { findTenantById } from '../stores/tenants.ts';
import type { EnqueueMailInput } from './mail.ts';
import { createSubscriptionLinks } from './subscriptions.ts';

/** The mail the product sends to admins and customer users, and the links in it. */

export const resetTokenLifetimeMs = 30 * 60_000;

/** The portal of each staff kind on the apps host. */
const portalPrefix: Record<StaffKind, string> = { admin: '/a', customer: '/d' };

/** The reset-password page: where a user who did not make a change asks for a new password. */
const resetRequestUrl = (config: AppContext['config'], kind: StaffKind) =>
  `${appsOrigin(config)}${portalPrefix[kind]}/reset-password`;

/** The reset-password page with a one-use reset token: the link a reset mails and a new account gets. */
export function resetPasswordUrl(config: AppContext['config'], kind: StaffKind, token: string): string {
  return `${resetRequestUrl(config, kind)}?token=${encodeURIComponent(token)}`;
}

export const staffMailTexts = {
  resetSubject: 'Reset your password',
  resetBody: (link: string) =>
    `Someone asked to reset the password of your account. To choose a new password, open this link within 30 minutes:\n\n${link}\n\nThe link works once. If you did not ask for this, you can ignore this mail; your password stays as it is.`,
} as const;

/**
 * A mail's subject and text, and when what it carries stops working; its kind, for the audit row of
 * its sending, is `staff-notice` unless given.
 */
export interface StaffMailContent {
  kind?: string;
  subject: string;
  text: string;
  expiresAt?: Date;
}

/** A mail to a staff user, with the unsubscribe links every mail to a tenant's address carries. */
export async function staffMailOf(
  deps: Pick<AppContext, 'db' | 'config' | 'subscriptionKey'>,
  user: Pick<StaffUser, 'tenantId' | 'email'>,
  mail: StaffMailContent,
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
  mail: StaffMailContent,
): Promise<void> {
  await ctx.mail.enqueueMail(await staffMailOf(ctx, user, mail));
}

/** A second factor as the mails name it. */
export type SecondFactorMethod = 'totp' | 'recovery' | 'passkey';

const factorNames: Record<SecondFactorMethod, string> = {
  totp: 'An authenticator app',
  passkey: 'A passkey',
  recovery: 'A recovery code',
};

/** What happened to an account that its owner is told of, whoever did it. */
export type SecurityNotice =
  | { kind: 'password-changed' }
  | { kind: 'factor-added' | 'factor-removed'; method: SecondFactorMethod; name?: string }
  | { kind: 'recovery-code-used'; left: number }
  | { kind: 'locked'; by: 'password' | 'second-factor'; until: Date };

/** A time as the mails show it: in UTC, since the server knows no reader's time zone. */
function mailTime(at: Date): string {
  const shown = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return `${shown.format(at)} UTC`;
}

function noticeText(notice: SecurityNotice, username: string, resetUrl: string) {
  const resetNow = `change your password at once (you can ask for a reset link at ${resetUrl}) and tell your administrator`;
  switch (notice.kind) {
    case 'password-changed':
      return {
        subject: 'Your password was changed',
        what: `The password of your account ${username} was changed.`,
        ifNotYou: `If you did not change it, ask for a reset link at ${resetUrl} at once and tell your administrator: someone else may have your password.`,
      };
    case 'factor-added':
    case 'factor-removed': {
      const added = notice.kind === 'factor-added';
      const named = notice.name === undefined ? '' : ` ("${notice.name}")`;
      return {
        subject: added
          ? 'A second factor was added to your account'
          : 'A second factor was removed from your account',
        what: `${factorNames[notice.method]}${named} was ${added ? 'added to' : 'removed from'} your account ${username}.`,
        ifNotYou: `If this was not you, someone can sign in as you: ${resetNow}, who can reset your second factors.`,
      };
    }
    case 'recovery-code-used':
      return {
        subject: 'A recovery code was used to sign in',
        what: `One of your recovery codes was just used to sign in to your account ${username}. It will not work again; ${notice.left} ${notice.left === 1 ? 'code is' : 'codes are'} left.`,
        ifNotYou: `If this was not you, ask your administrator to reset your second factors, and change your password at once (you can ask for a reset link at ${resetUrl}).`,
      };
    case 'locked':
      return {
        subject: 'Your account was locked',
        what: `After too many wrong ${notice.by === 'password' ? 'passwords' : 'second-factor codes'}, signing in to your account ${username} is locked until ${mailTime(notice.until)}.`,
        ifNotYou:
          notice.by === 'password'
            ? `If these attempts were not yours, someone is guessing your password. Once the lock ends, ${resetNow}.`
            : `If these attempts were not yours, someone who knows your password is guessing your second factor: ${resetNow}.`,
      };
  }
}

/** Tells a user what happened to their account, when, and from which address, and what to do if it was not them. */
export async function mailSecurityNotice(
  ctx: AppContext,
  user: Pick<StaffUser, 'kind' | 'username' | 'tenantId' | 'email'>,
  notice: SecurityNotice,
  seen: { at: Date; ip: string | null },
): Promise<void> {
  const { subject, what, ifNotYou } = noticeText(
    notice,
    user.username,
    resetRequestUrl(ctx.config, user.kind),
  );
  const from = seen.ip === null ? '' : `\nFrom the address: ${seen.ip}`;
  const text = `${what}\n\nWhen: ${mailTime(seen.at)}${from}\n\n${ifNotYou}`;
  await mailStaffUser(ctx, user, { kind: `staff-${notice.kind}`, subject, text });
}
