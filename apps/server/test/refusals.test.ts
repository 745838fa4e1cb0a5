import { describe, expect, it } from 'vitest';
import { refusals, refuse } from '../src/refusals.ts';

describe('refusal table', () => {
  it('answers the statuses of docs/rules.md#errors for its situations', () => {
    const statuses = Object.fromEntries(
      Object.entries(refusals).map(([name, row]) => [name, `${row.status} ${row.errorCode}`]),
    );
    expect(statuses).toMatchObject({
      invalidValue: '400 InvalidValue',
      notAuthorized: '401 NotAuthorized',
      notPermitted: '403 NotPermitted',
      tooManyRequests: '429 ToManyRequests',
      itemNotFound: '404 ItemNotFound',
      linkExpired: '404 TokenExpired',
      linkExpiredOnVerify: '403 TokenExpired',
      invalidSignIn: '401 InvalidSignIn',
      userLocked: '401 UserLocked',
      passwordExpired: '401 PasswordExpired',
      verificationMismatch: '409 InvalidSignIn',
      verificationAmbiguous: '409 Ambiguous',
      verificationLocked: '403 UserLocked',
      wrongMfaCode: '409 InvalidSignIn',
      invalidLaunchToken: '400 InvalidState',
      passwordTooShort: '400 WeakPassword',
      passwordTooGuessable: '400 WeakPassword',
      invalidResetToken: '409 InvalidState',
      subscriptionLinkInvalid: '401 NotAuthorized',
      reservedSubdomain: '400 ReservedValue',
    });
  });

  it('names the fields of the table with the message, or the fields and items the caller gives', () => {
    expect(refuse('invalidJson').toBody()).toEqual({
      errorCode: 'InvalidValue',
      message: 'The request body is not valid JSON.',
      errors: [{ field: 'body', message: 'The request body is not valid JSON.' }],
    });
    expect(refuse('nulCharacter', { fields: ['query.name'] }).errors).toEqual([
      { field: 'query.name', message: 'The value must not contain a NUL character.' },
    ]);
    expect(refuse('notReady', { errors: [{ field: 'database', message: 'down' }] }).errors).toEqual([
      { field: 'database', message: 'down' },
    ]);
    expect(refuse('notAuthorized').errors).toEqual([]);
  });

  it('puts the refused value in the message', () => {
    expect(refuse('staffUserNotFound', { kind: 'admin', username: 'pat' }).message).toBe(
      'There is no admin user named "pat".',
    );
    expect(refuse('passwordTooShort', 12).errors).toEqual([
      { field: 'newPassword', message: 'The new password must be at least 12 characters long.' },
    ]);
  });

  it('says when to try again, in whole seconds of at least one, when that is known', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    const until = new Date(now.getTime() + 90_500);
    expect(refuse('verificationLocked', { retryAt: { until, now } }).retryAfterSeconds).toBe(91);
    expect(refuse('resendTooSoon', { retryAt: { until: now, now } }).retryAfterSeconds).toBe(1);
    expect(refuse('userLocked', { retryAt: { until: null, now } }).retryAfterSeconds).toBeUndefined();
  });
});
