import { describe, expect, it } from 'vitest';
import { redactUrl } from '../src/log-redaction.ts';

describe('secrets never reach the logs', () => {
  it.each([
    [
      '/api/auth/v1/consumers/token/0193ef3b-c227-47e2-86e7-a59241c00ac4',
      '/api/auth/v1/consumers/token/[redacted]',
    ],
    ['/api/auth/v1/consumers/token/ABCDE12345/verify', '/api/auth/v1/consumers/token/[redacted]/verify'],
    [
      '/api/v1/communication/email/subscription/token/abc.def',
      '/api/v1/communication/email/subscription/token/[redacted]',
    ],
    [
      '/api/auth/v1/consumer/sign-in/mfa?mfaCode=123456',
      '/api/auth/v1/consumer/sign-in/mfa?mfaCode=[redacted]',
    ],
    [
      '/api/v1/communication/email/subscription?Token=abc&EmailAddress=a%40b.c&Unsubscribed=true',
      '/api/v1/communication/email/subscription?Token=[redacted]&EmailAddress=[redacted]&Unsubscribed=true',
    ],
    ['/unsubscribe?token=abc', '/unsubscribe?token=[redacted]'],
    ['/d/reset-password?token=abc', '/d/reset-password?token=[redacted]'],
    ['/0193ef3b-c227-47e2-86e7-a59241c00ac4/2/77', '/[redacted]/2/77'],
    ['/c/account-summary?session-guid=abc', '/c/account-summary?session-guid=[redacted]'],
    ['/api/auth/v1/access/sender', '/api/auth/v1/access/sender'],
    ['/assets/index-abc.js', '/assets/index-abc.js'],
  ])('logs %s as %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
  });
});
