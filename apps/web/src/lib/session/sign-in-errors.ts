import { isApiError, networkErrorMessage } from '@entry/client';
import { textsOf } from '../../i18n/language.ts';
import { plural } from '../../i18n/plural.ts';

const locale = 'en-US';

/** Our own plain texts for a refused call that every sign-in page, the consumer's and the staff's, explains alike. */
export const refusalMessages = {
  network: networkErrorMessage,
  tooManyRequests:
    'There have been too many attempts from your network. Please wait a few minutes and try again.',
  // Neutral: a 429 with a wait may come from the per-address limit or from the consumer's code mails.
  tooManyRequestsFor: (wait: string) => `There have been too many attempts. Try again ${wait}.`,
  notAvailable: 'We could not complete this just now. Please try again in a moment.',
  /** A wait, after "try again": in a minute, in so many minutes, in about so many hours. */
  inAMinute: 'in a minute',
  inMinutes: (minutes: number) => `in ${minutes} minutes`,
  inAboutHours: (hours: number) => plural(locale, hours, 'in about 1 hour', `in about ${hours} hours`),
} as const;

/** Our own plain texts for a refused staff sign-in step; the spec names the codes, not the words. */
export const signInMessages = {
  wrongPassword: 'The username or password is not correct. Check both and try again.',
  locked:
    'This account is locked for a while after too many failed sign-ins. Try again later, or reset your password to unlock it now.',
  lockedFor: (wait: string) =>
    `This account is locked after too many failed sign-ins. Try again ${wait}, or reset your password to unlock it now.`,
  passwordExpired: 'Your password has expired. Choose a new one to continue.',
} as const;

/** What makes a password strong (docs/rules.md#passwords): length and guessability, no composition rules. */
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
  const texts = textsOf('refusals', refusalMessages);
  const minutes = Math.ceil(seconds / 60);
  if (minutes <= 1) return texts.inAMinute;
  if (minutes < 60) return texts.inMinutes(minutes);
  return texts.inAboutHours(Math.round(minutes / 60));
}

/** The wait the server asked for (its `Retry-After`), in words; undefined when it did not say. */
export function waitOf(error: unknown): string | undefined {
  const seconds = isApiError(error) ? error.retryAfterSeconds : undefined;
  return seconds === undefined ? undefined : waitInWords(seconds);
}

/** The words of a lock: without and with when to try again. */
export interface LockMessages {
  locked: string;
  lockedFor(wait: string): string;
}

/** A lock (by default a staff account's), with when to try again where the server said. */
export function lockedMessage(error: unknown, messages: LockMessages = signInMessages): string {
  const wait = waitOf(error);
  return wait === undefined ? messages.locked : messages.lockedFor(wait);
}

/** The status or code of a failed call that every sign-in page explains the same way. */
export function commonRefusalMessage(error: unknown): string {
  const texts = textsOf('refusals', refusalMessages);
  if (isApiError(error)) {
    if (error.kind === 'network') return texts.network;
    if (error.status === 429 || error.errorCode === 'ToManyRequests') {
      const wait = waitOf(error);
      return wait === undefined ? texts.tooManyRequests : texts.tooManyRequestsFor(wait);
    }
  }
  return texts.notAvailable;
}

/** The error code of a failed call, when the server sent an error body. */
export function errorCodeOf(error: unknown): string | undefined {
  return isApiError(error) ? error.errorCode : undefined;
}
