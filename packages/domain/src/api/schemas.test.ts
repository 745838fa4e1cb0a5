import { describe, expect, it } from 'vitest';
import {
  appConfigSchema,
  authTokenResultSchema,
  customerIdSchema,
  errorBodySchema,
  identityTokenQuerySchema,
  lookupSignInRequestSchema,
  mfaQuerySchema,
  passwordChangeRequestSchema,
  subscriptionUpdateQuerySchema,
} from './schemas.ts';

const authToken = {
  accessToken: 'a.b.c',
  accessTokenExpiresIn: 15,
  refreshToken: 'r',
  refreshTokenExpiresIn: 60,
  sessionGuid: 'g',
  accessType: 'Consumer',
  hasRestrictedAccess: false,
};

const lookup = { subdomain: 'sender', customerId: 1001 };

describe('wire schemas', () => {
  it.each([
    ['an auth token result', authTokenResultSchema, authToken, true],
    ['an unknown access type', authTokenResultSchema, { ...authToken, accessType: 'Root' }, false],
    ['an error body', errorBodySchema, { errorCode: 'ToManyRequests', message: 'm', errors: [] }, true],
    [
      'an error body with a misspelt code',
      errorBodySchema,
      { errorCode: 'TooManyRequests', message: 'm', errors: [] },
      false,
    ],
    [
      'a lookup with a date of birth',
      lookupSignInRequestSchema,
      { ...lookup, dateOfBirth: '1980-04-15' },
      true,
    ],
    [
      'a lookup with a date-time of birth',
      lookupSignInRequestSchema,
      { ...lookup, dateOfBirth: '1980-04-15T00:00:00Z' },
      false,
    ],
    ['a lookup with five SSN digits', lookupSignInRequestSchema, { ...lookup, last4Ssn: '12345' }, false],
    ['a lookup with an extra field', lookupSignInRequestSchema, { ...lookup, ssn: '123456789' }, false],
    ['a six-digit MFA code', mfaQuerySchema, { mfaCode: '123456' }, true],
    ['a five-digit MFA code', mfaQuerySchema, { mfaCode: '12345' }, false],
    [
      'a password change by reset token',
      passwordChangeRequestSchema,
      { resetToken: 't', newPassword: 'p' },
      true,
    ],
    [
      'a password change with both forms',
      passwordChangeRequestSchema,
      { resetToken: 't', username: 'u', newPassword: 'p' },
      false,
    ],
    ['a subscription update without Unsubscribed', subscriptionUpdateQuerySchema, { Token: 't' }, false],
    [
      'an app config',
      appConfigSchema,
      {
        domain: 'localhost',
        scheme: 'http',
        port: '8080',
        adminDomainMarkers: ['admin'],
        dashDomainMarkers: ['dash'],
      },
      true,
    ],
  ])('%s: valid %s', (_name, schema, value, valid) => {
    expect(schema.safeParse(value).success).toBe(valid);
  });

  it.each([
    ['true', true],
    ['false', false],
  ])('reads the query boolean %s', (text, value) => {
    expect(identityTokenQuerySchema.parse({ addAction: text })).toEqual({ addAction: value });
    expect(subscriptionUpdateQuerySchema.parse({ Token: 't', Unsubscribed: text }).Unsubscribed).toBe(value);
  });

  it.each([
    ['1001', 1001],
    ['0', null],
    ['-5', null],
    ['1.5', null],
    ['abc', null],
  ])('reads the customer id %j as %j', (text, id) => {
    const result = customerIdSchema.safeParse(text);
    expect(result.success ? result.data : null).toBe(id);
  });
});
