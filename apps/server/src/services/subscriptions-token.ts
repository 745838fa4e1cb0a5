import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The token in every mail's subscription link: an HMAC-signed value naming the tenant and the
 * address (docs/rules.md#subscriptions). It never expires, so a link in a mail sent years ago still
 * works (Regulation F, 12 CFR 1006.6(e)), and it needs no database row before first use.
 *
 * Shape: base64url(`{customerId}:{emailAddress}`) `.` base64url(HMAC-SHA256(key, first part)).
 */

export interface SubscriptionSubject {
  customerId: number;
  emailAddress: string;
}

/**
 * The signing key is derived from the server's long-lived secret with a fixed label, so the same
 * secret can serve several purposes without one purpose's MACs being valid for another.
 */
export function subscriptionTokenKey(secret: string): Buffer {
  return createHmac('sha256', secret).update('email-subscription-token/v1').digest();
}

/** Addresses are compared and stored trimmed and in lower case: one record per tenant and address. */
export function normaliseEmailAddress(emailAddress: string): string {
  return emailAddress.trim().toLowerCase();
}

function sign(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

export function createSubscriptionToken(key: Buffer, subject: SubscriptionSubject): string {
  const payload = Buffer.from(
    `${subject.customerId}:${normaliseEmailAddress(subject.emailAddress)}`,
    'utf8',
  ).toString('base64url');
  return `${payload}.${sign(key, payload).toString('base64url')}`;
}

/** The subject of a genuine token, or null for anything forged, altered or malformed. */
export function verifySubscriptionToken(key: Buffer, token: string): SubscriptionSubject | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [payload, signature] = parts as [string, string];
  if (!/^[A-Za-z0-9_-]+$/.test(payload) || !/^[A-Za-z0-9_-]+$/.test(signature)) return null;
  const expected = sign(key, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const decoded = Buffer.from(payload, 'base64url').toString('utf8');
  const match = /^([1-9]\d{0,9}):(.+)$/s.exec(decoded);
  if (!match) return null;
  const customerId = Number(match[1]);
  const emailAddress = match[2] ?? '';
  if (!Number.isSafeInteger(customerId) || emailAddress.trim() === '') return null;
  return { customerId, emailAddress };
}
