import { isApiError, networkErrorMessage } from '@entry/client';

/** Our own plain texts for a refused sign-in step; the spec names the codes, not the words. */
export const signInMessages = {
  wrongPassword: 'The username or password is not correct. Check both and try again.',
  locked:
    'This account is locked for a while after too many failed sign-ins. Try again later, or reset your password to unlock it now.',
  tooManyRequests:
    'There have been too many attempts from your network. Please wait a few minutes and try again.',
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
  tooShort: 'Use at least 12 characters.',
  mismatch: 'The two new passwords are not the same.',
} as const;

/** The status or code of a failed call that every sign-in page explains the same way. */
export function commonRefusalMessage(error: unknown): string {
  if (isApiError(error)) {
    if (error.kind === 'network') return networkErrorMessage;
    if (error.status === 429 || error.errorCode === 'ToManyRequests') return signInMessages.tooManyRequests;
  }
  return signInMessages.notAvailable;
}

/** The error code of a failed call, when the server sent an error body. */
export function errorCodeOf(error: unknown): string | undefined {
  return isApiError(error) ? error.errorCode : undefined;
}
