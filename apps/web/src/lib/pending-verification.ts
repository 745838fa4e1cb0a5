import type { KeyValueStorage } from '@entry/client';
import type { SignInType } from '@entry/domain';
import { paths } from '../config/paths.ts';

/**
 * What the link guard hands to the consumer portal's verification pages, in the history entry's
 * state rather than the address, so the identity token never shows in the address bar.
 */
export interface PendingVerification {
  token: string;
  signInType: SignInType;
  customerId: number;
  subdomain: string;
  /** When the link's verification opens again (epoch ms), where it was locked as it was opened. */
  lockedUntil?: number;
}

export function isPendingVerification(value: unknown): value is PendingVerification {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.token === 'string' &&
    typeof candidate.signInType === 'string' &&
    typeof candidate.customerId === 'number' &&
    typeof candidate.subdomain === 'string' &&
    (candidate.lockedUntil === undefined || typeof candidate.lockedUntil === 'number')
  );
}

/** The pending verification of a navigation's state, if the link guard left one. */
export function pendingVerificationOf(state: unknown): PendingVerification | null {
  if (typeof state !== 'object' || state === null) return null;
  const pending = (state as { pendingVerification?: unknown }).pendingVerification;
  return isPendingVerification(pending) ? pending : null;
}

/**
 * Session storage key of the link this tab opened, kept so that sign-out, the idle sign-out,
 * "Start again" and an ended session lead back to the verification that link asks for, or for a
 * Direct link (which signs in by itself) to a page that opens it again on request. It holds the
 * link's identity, never its payment data; the tab's session storage already holds the session
 * the link opened, and both go with the tab.
 */
export const rememberedLinkKey = 'link-verification';

export function rememberLink(storage: KeyValueStorage, pending: PendingVerification): void {
  storage.setItem(rememberedLinkKey, JSON.stringify(pending));
}

export function forgetLink(storage: KeyValueStorage): void {
  storage.removeItem(rememberedLinkKey);
}

export function rememberedLink(storage: Pick<KeyValueStorage, 'getItem'>): PendingVerification | null {
  const raw = storage.getItem(rememberedLinkKey);
  if (raw === null) return null;
  try {
    const parsed: unknown = JSON.parse(raw);
    return isPendingVerification(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Sign-in types whose link asks for one answer on `verify-token`. */
const oneAnswerTypes: readonly SignInType[] = ['Last4Ssn', 'PostalCode', 'DateOfBirth'];

export function asksOneAnswer(pending: PendingVerification): boolean {
  return oneAnswerTypes.includes(pending.signInType);
}

/**
 * Where a consumer starts again: the verification page of the link remembered in this tab, the
 * signed-out page for a Direct link (opening it again would undo the sign-out, so only a click
 * does), or the three questions for a consumer who came without a link (docs/rules.md#verification).
 */
export function consumerStartPath(storage: Pick<KeyValueStorage, 'getItem'>): string {
  const link = rememberedLink(storage);
  if (link?.signInType === 'Direct') return paths.consumerPortal.signedOut.href();
  return link !== null && asksOneAnswer(link)
    ? paths.consumerPortal.verifyToken.href()
    : paths.consumerPortal.verifyIdentity.href();
}
