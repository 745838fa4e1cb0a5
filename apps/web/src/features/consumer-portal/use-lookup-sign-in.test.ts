import { ApiError, networkErrorMessage } from '@entry/client';
import { describe, expect, it } from 'vitest';
import { signInMessages } from '../../lib/session/sign-in-errors.ts';
import { consumerMessages } from './consumer-messages.ts';
import { lookupRefusal } from './use-lookup-sign-in.ts';

function listed(status: number, errorCode?: string, retryAfterSeconds?: number) {
  return new ApiError('listed', 'A server side error occurred.', {
    status,
    body:
      errorCode === undefined ? undefined : { errorCode: errorCode as 'Unknown', message: '', errors: [] },
    retryAfterSeconds,
  });
}

describe('lookupRefusal', () => {
  it.each([
    ['no match', listed(409, 'InvalidSignIn'), consumerMessages.noMatch],
    ['a locked link', listed(403, 'UserLocked'), consumerMessages.locked],
    ['several consumers', listed(409, 'Ambiguous'), consumerMessages.ambiguous],
    ['an unknown link or consumer', listed(404, 'ItemNotFound'), consumerMessages.notFound],
    ['an expired link (404)', listed(404, 'TokenExpired'), null],
    ['an expired link (403)', listed(403, 'TokenExpired'), null],
    ['a verifier that failed', listed(502), consumerMessages.serviceUnavailable],
    ['a verifier that timed out', listed(504), consumerMessages.serviceUnavailable],
    ['too many attempts', listed(429, 'ToManyRequests'), signInMessages.tooManyRequests],
    [
      'a locked link, with when to try again',
      listed(403, 'UserLocked', 900),
      'For your security, verification is locked after too many attempts. Try again in 15 minutes, or contact the organisation that wrote to you.',
    ],
    [
      'too many attempts, with when to try again',
      listed(429, 'ToManyRequests', 3300),
      'There have been too many attempts. Try again in 55 minutes.',
    ],
    [
      'a lock of hours',
      listed(403, 'UserLocked', 4 * 3600),
      'For your security, verification is locked after too many attempts. Try again in about 4 hours, or contact the organisation that wrote to you.',
    ],
    ['no connection', new ApiError('network', networkErrorMessage), networkErrorMessage],
  ])('explains %s', (_, error, expected) => {
    expect(lookupRefusal(error)).toBe(expected);
  });
});
