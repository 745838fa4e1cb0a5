import { isApiError, networkErrorMessage } from '@entry/client';

/** Our own plain texts for a refused sign-in step; the spec names the codes, not the words. */
export const signInMessages = {
  wrongPassword: 'The username or password is not correct. Check both and try again.',
  locked:
    'This account is locked for a while after too many failed sign-ins. Try again later, or reset your password to unlock it now.',
  lockedFor: (wait: string) =>
    `This account is locked after too many failed sign-ins. Try again ${wait}, or reset your password to unlock it now.`,
  tooManyRequests:
    'There have been too many attempts from your network. Please wait a few minutes and try again.',
  // Neutral: a 429 with a wait may come from the per-address limit or from the consumer's code mails.
  tooManyRequestsFor: (wait: string) => `There have been too many attempts. Try again ${wait}.`,
  passwordExpired: 'Your password has expired. Choose a new one to continue.',
  notAvailable: 'We could not complete this just now. Please try again in a moment.',
} as const;

/** What makes a password strong (DESIGN.md section 5): length and guessability, no composition rules. */
export const passwordAdvice = {
  minimumLength: 12,
  rule: 'Use at least 12 characters. A few unrelated words together make a strong password that is easy to remember.',
  avoid:
    'Avoid common passwords, names, dates and keyboard patterns. You do not need symbols, digits or capital letters.',
  weak: 'That password is too easy to guess.',
  weakTip: 'Try a few unrelated words together, as the advice below says.',
  tooShort: 'Use at least 12 characters.',
  mismatch: 'The two new passwords are not the same.',
} as const;

/**
 * How long a wait is, in plain words after "try again": whole minutes rounded up, about so many
 * hours from an hour on.
 */
export function waitInWords(seconds: number): string {
  const minutes = Math.ceil(seconds / 60);
  if (minutes <= 1) return 'in a minute';
  if (minutes < 60) return `in ${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return hours === 1 ? 'in about 1 hour' : `in about ${hours} hours`;
}

/** The wait the server asked for (its `Retry-After`), in words; undefined when it did not say. */
export function waitOf(error: unknown): string | undefined {
  const seconds = isApiError(error) ? error.retryAfterSeconds : undefined;
  return seconds === undefined ? undefined : waitInWords(seconds);
}

/** A locked staff account, with when to try again where the server said. */
export function lockedMessage(error: unknown): string {
  const wait = waitOf(error);
  return wait === undefined ? signInMessages.locked : signInMessages.lockedFor(wait);
}

/** The status or code of a failed call that every sign-in page explains the same way. */
export function commonRefusalMessage(error: unknown): string {
  if (isApiError(error)) {
    if (error.kind === 'network') return networkErrorMessage;
    if (error.status === 429 || error.errorCode === 'ToManyRequests') {
      const wait = waitOf(error);
      return wait === undefined ? signInMessages.tooManyRequests : signInMessages.tooManyRequestsFor(wait);
    }
  }
  return signInMessages.notAvailable;
}

/** The error code of a failed call, when the server sent an error body. */
export function errorCodeOf(error: unknown): string | undefined {
  return isApiError(error) ? error.errorCode : undefined;
}
