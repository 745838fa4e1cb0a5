import type { SignInType } from '@entry/domain';

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
