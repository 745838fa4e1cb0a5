import type { EmailSubscription, Language } from '@entry/domain';
import { type Config, publicOrigin } from '../config.ts';
import type { Database } from '../db/index.ts';
import {
  findOrCreateSubscriptionRow,
  type SubscriptionRow,
  setUnsubscribed,
} from '../stores/email-subscriptions.ts';
import type { UnsubscribeLinks } from './mail.ts';
import {
  createSubscriptionToken,
  normaliseEmailAddress,
  type SubscriptionSubject,
} from './subscriptions-token.ts';

/**
 * Email subscriptions: one record per tenant and address, created on first use; `changedAt` is
 * set when the record is created and whenever `unsubscribed` changes (docs/rules.md#subscriptions).
 */

export function toWireSubscription(row: SubscriptionRow): EmailSubscription {
  return {
    emailAddress: row.emailAddress,
    unsubscribed: row.unsubscribed,
    changedAt: row.changedAt.toISOString(),
  };
}

const keyOf = (subject: SubscriptionSubject) => ({
  tenantId: subject.customerId,
  emailAddress: normaliseEmailAddress(subject.emailAddress),
});

/** The record of a tenant's address, created subscribed on first use; null for an unknown tenant. */
export function findOrCreateSubscription(
  db: Database,
  subject: SubscriptionSubject,
  now: Date,
): Promise<SubscriptionRow | null> {
  return findOrCreateSubscriptionRow(db, keyOf(subject), now);
}

/** Sets `unsubscribed`; null for an unknown tenant. `changed` says whether the value moved. */
export function setSubscription(
  db: Database,
  subject: SubscriptionSubject,
  unsubscribed: boolean,
  now: Date,
): Promise<{ row: SubscriptionRow; changed: boolean } | null> {
  return setUnsubscribed(db, keyOf(subject), unsubscribed, now);
}

export interface SubscriptionLinks {
  /** The token of the address's subscription links. */
  tokenFor(subject: SubscriptionSubject): string;
  /**
   * The email preferences page, for the visible opt-out link of every mail (12 CFR 1006.6(e)); it
   * opens in Spanish for a Spanish mail.
   */
  subscriptionUrlFor(
    tenant: { subdomain: string },
    subject: SubscriptionSubject,
    language?: Language,
  ): string;
  /** The RFC 8058 one-click address for the `List-Unsubscribe` header. */
  oneClickUrlFor(tenant: { subdomain: string }, subject: SubscriptionSubject): string;
  /** Both, in the shape the mail service puts into every mail. */
  unsubscribeLinksFor(
    tenant: { subdomain: string },
    subject: SubscriptionSubject,
    language?: Language,
  ): UnsubscribeLinks;
}

export const oneClickUnsubscribePath = '/api/v1/communication/email/unsubscribe';

/** `key` is the subscription-token key (`subscriptionTokenKey(KBA_PEPPER)`, the context's `subscriptionKey`). */
export function createSubscriptionLinks(config: Config, key: Buffer): SubscriptionLinks {
  const tokenFor = (subject: SubscriptionSubject) => createSubscriptionToken(key, subject);
  const subscriptionUrlFor = (
    tenant: { subdomain: string },
    subject: SubscriptionSubject,
    language: Language = 'en',
  ) =>
    `${publicOrigin(config, tenant.subdomain)}/unsubscribe?token=${encodeURIComponent(tokenFor(subject))}${language === 'en' ? '' : `&lang=${language}`}`;
  const oneClickUrlFor = (tenant: { subdomain: string }, subject: SubscriptionSubject) =>
    `${publicOrigin(config, tenant.subdomain)}${oneClickUnsubscribePath}?token=${encodeURIComponent(tokenFor(subject))}`;
  return {
    tokenFor,
    subscriptionUrlFor,
    oneClickUrlFor,
    unsubscribeLinksFor: (tenant, subject, language) => ({
      pageUrl: subscriptionUrlFor(tenant, subject, language),
      oneClickUrl: oneClickUrlFor(tenant, subject),
    }),
  };
}
