import { ApiError, networkErrorMessage } from '@entry/client';
import { describe, expect, it } from 'vitest';
import { refusalMessages } from '../../lib/session/refusal-messages.ts';
import { consumerMessages } from './consumer-messages.ts';
import { lockEndOf, lookupOutcome } from './use-lookup-sign-in.ts';

const now = Date.UTC(2026, 10, 27, 15, 30);

function listed(
  status: number,
  errorCode?: string,
  options: { retryAfterSeconds?: number; triesLeft?: number; lockedUntil?: string } = {},
) {
  const { retryAfterSeconds, ...extra } = options;
  return new ApiError('listed', 'A server side error occurred.', {
    status,
    body:
      errorCode === undefined
        ? undefined
        : { errorCode: errorCode as 'Unknown', message: '', errors: [], ...extra },
    retryAfterSeconds,
  });
}

const refused = (message: string) => ({ kind: 'refused', message });

describe('lookupOutcome', () => {
  it.each([
    ['no match', listed(409, 'InvalidSignIn'), refused(consumerMessages.noMatch)],
    [
      'no match, with the tries left',
      listed(409, 'InvalidSignIn', { triesLeft: 2 }),
      refused(
        'These details do not match our records. Check them and try again. 2 tries left before verification locks for a while.',
      ),
    ],
    [
      'no match, with one try left',
      listed(409, 'InvalidSignIn', { triesLeft: 1 }),
      refused(
        'These details do not match our records. Check them and try again. 1 try left before verification locks for a while.',
      ),
    ],
    [
      'the wrong answer that locked verification',
      listed(409, 'InvalidSignIn', {
        triesLeft: 0,
        retryAfterSeconds: 900,
        lockedUntil: '2026-11-27T15:45:00.000Z',
      }),
      { kind: 'locked', until: new Date(now + 900_000) },
    ],
    ['a locked link', listed(403, 'UserLocked'), { kind: 'locked', until: null }],
    [
      'a locked link, with when it opens again',
      listed(403, 'UserLocked', { retryAfterSeconds: 600 }),
      { kind: 'locked', until: new Date(now + 600_000) },
    ],
    ['several consumers', listed(409, 'Ambiguous', { triesLeft: 3 }), refused(consumerMessages.ambiguous)],
    ['an unknown link or consumer', listed(404, 'ItemNotFound'), refused(consumerMessages.notFound)],
    ['an expired link (404)', listed(404, 'TokenExpired'), { kind: 'expired' }],
    ['an expired link (403)', listed(403, 'TokenExpired'), { kind: 'expired' }],
    ['a verifier that failed', listed(502), refused(consumerMessages.serviceUnavailable)],
    ['a verifier that timed out', listed(504), refused(consumerMessages.serviceUnavailable)],
    ['too many attempts', listed(429, 'ToManyRequests'), refused(refusalMessages.tooManyRequests)],
    [
      'too many attempts, with when to try again',
      listed(429, 'ToManyRequests', { retryAfterSeconds: 3300 }),
      refused('There have been too many attempts. Try again in 55 minutes.'),
    ],
    ['no connection', new ApiError('network', networkErrorMessage), refused(networkErrorMessage)],
  ])('explains %s', (_, error, expected) => {
    expect(lookupOutcome(error, now)).toEqual(expected);
  });
});

describe('lockEndOf', () => {
  it("counts the server's Retry-After on this device's clock first, then reads the body's end", () => {
    const both = listed(403, 'UserLocked', {
      retryAfterSeconds: 60,
      lockedUntil: '2026-11-27T18:00:00.000Z',
    });
    expect(lockEndOf(both, now)).toEqual(new Date(now + 60_000));
    const bodyOnly = listed(403, 'UserLocked', { lockedUntil: '2026-11-27T18:00:00.000Z' });
    expect(lockEndOf(bodyOnly, now)).toEqual(new Date('2026-11-27T18:00:00.000Z'));
    expect(lockEndOf(listed(403, 'UserLocked'), now)).toBeNull();
  });
});
