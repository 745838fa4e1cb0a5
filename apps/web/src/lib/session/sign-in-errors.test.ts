import { ApiError } from '@entry/client';
import { describe, expect, it } from 'vitest';
import { refusalMessages } from './refusal-messages.ts';
import { commonRefusalMessage, lockedMessage, signInMessages, waitInWords } from './sign-in-errors.ts';

describe('waitInWords', () => {
  it.each([
    [0, 'in a minute'],
    [1, 'in a minute'],
    [60, 'in a minute'],
    [61, 'in 2 minutes'],
    [900, 'in 15 minutes'],
    [3540, 'in 59 minutes'],
    [3541, 'in about 1 hour'],
    [5340, 'in about 1 hour'],
    [5400, 'in about 2 hours'],
    [86_400, 'in about 24 hours'],
  ])('says a wait of %i seconds as "%s"', (seconds, words) => {
    expect(waitInWords(seconds)).toBe(words);
  });
});

describe('refusals with and without a Retry-After', () => {
  const refused = (status: number, errorCode: 'UserLocked' | 'ToManyRequests', retryAfterSeconds?: number) =>
    new ApiError('listed', 'A server side error occurred.', {
      status,
      body: { errorCode, message: '', errors: [] },
      retryAfterSeconds,
    });

  it('says when to try again after too many attempts only when the server said', () => {
    expect(commonRefusalMessage(refused(429, 'ToManyRequests', 900))).toBe(
      'There have been too many attempts. Try again in 15 minutes.',
    );
    expect(commonRefusalMessage(refused(429, 'ToManyRequests'))).toBe(refusalMessages.tooManyRequests);
  });

  it('says how long an account stays locked, or "for a while" when the server did not say', () => {
    expect(lockedMessage(refused(401, 'UserLocked', 3600))).toBe(
      'This account is locked after too many failed sign-ins. Try again in about 1 hour, or reset your password to unlock it now.',
    );
    expect(lockedMessage(refused(401, 'UserLocked'))).toBe(signInMessages.locked);
    expect(signInMessages.locked).toContain('for a while');
  });
});
