import { isApiError } from '@entry/client';
import { commonRefusalMessage, lockedMessage } from '../../../lib/session/sign-in-errors.ts';
import { passkeyFailureMessage } from './passkey-ceremony.ts';
import { type SecondFactorMethod, secondFactorMessages } from './second-factor-messages.ts';

/** The server refused the call until a second factor is confirmed again (a step-up). */
export function isStepUpRequired(error: unknown): boolean {
  return isApiError(error) && error.body?.stepUpRequired === true;
}

/** The server's own words for a refusal meant for the person, when it sent some. */
function serverWords(error: unknown, fallback: string): string {
  const message = isApiError(error) ? error.body?.message.trim() : undefined;
  return message === undefined || message === '' ? fallback : message;
}

/**
 * A failed second step, step-up or factor change in plain words: the browser's passkey failures,
 * a wrong code or unknown passkey, a lock, a sign-in step that timed out, or the server's refusal.
 */
export function secondFactorRefusal(error: unknown, method?: SecondFactorMethod): string {
  const passkeyFailure = passkeyFailureMessage(error);
  if (passkeyFailure !== null) return passkeyFailure;
  if (!isApiError(error)) return commonRefusalMessage(error);
  if (isStepUpRequired(error)) return secondFactorMessages.stepUpRequired;
  switch (error.errorCode) {
    case 'InvalidSignIn':
      return serverWords(
        error,
        method === 'passkey' ? secondFactorMessages.passkeyNotRegistered : secondFactorMessages.wrongCode,
      );
    case 'UserLocked':
      // Second-factor tries lock apart from the password: a new password does not lift this lock.
      return lockedMessage(error, secondFactorMessages);
    case 'NotAuthorized':
      return secondFactorMessages.pendingExpired;
    case 'InvalidValue':
    case 'InvalidState':
    case 'NotPermitted':
    case 'ItemNotFound':
      return serverWords(error, commonRefusalMessage(error));
    default:
      // A 401 without those codes: the restricted session of the sign-in has ended.
      return error.status === 401 ? secondFactorMessages.pendingExpired : commonRefusalMessage(error);
  }
}
