import { describe, expect, it } from 'vitest';
import {
  createSubscriptionToken,
  subscriptionTokenKey,
  verifySubscriptionToken,
} from '../src/services/subscriptions-token.ts';

const key = subscriptionTokenKey('test-secret-0123456789');

describe('subscription token', () => {
  it('names the tenant and the address, lower-cased', () => {
    const token = createSubscriptionToken(key, { customerId: 1001, emailAddress: ' Pat@Example.com ' });
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifySubscriptionToken(key, token)).toEqual({
      customerId: 1001,
      emailAddress: 'pat@example.com',
    });
  });

  it('is the same for every mail to the same address, so old links keep working', () => {
    const subject = { customerId: 7, emailAddress: 'a@b.co' };
    expect(createSubscriptionToken(key, subject)).toBe(createSubscriptionToken(key, subject));
  });

  it('keeps addresses with separators intact', () => {
    const token = createSubscriptionToken(key, { customerId: 7, emailAddress: 'odd:name.x@b.co' });
    expect(verifySubscriptionToken(key, token)?.emailAddress).toBe('odd:name.x@b.co');
  });

  const genuine = createSubscriptionToken(key, { customerId: 1001, emailAddress: 'pat@example.com' });
  const [payload, signature] = genuine.split('.') as [string, string];
  const otherPayload = Buffer.from('1001:eve@example.com').toString('base64url');

  it.each([
    [
      'another key',
      createSubscriptionToken(subscriptionTokenKey('other-secret-012345'), {
        customerId: 1001,
        emailAddress: 'pat@example.com',
      }),
    ],
    ['a swapped address', `${otherPayload}.${signature}`],
    ['a truncated signature', `${payload}.${signature.slice(0, -2)}`],
    ['no signature', payload],
    ['three parts', `${genuine}.x`],
    ['non-base64url characters', `${payload}.${signature.slice(0, -1)}+`],
    ['empty', ''],
  ])('refuses %s', (_label, token) => {
    expect(verifySubscriptionToken(key, token)).toBeNull();
  });

  it('refuses a signed payload that does not name a tenant and an address', () => {
    const sign = (text: string) => {
      const forged = Buffer.from(text).toString('base64url');
      const sameKeyToken = createSubscriptionToken(key, { customerId: 1, emailAddress: 'x@y.z' });
      return `${forged}.${sameKeyToken.split('.')[1]}`;
    };
    expect(verifySubscriptionToken(key, sign('0:x@y.z'))).toBeNull();
    expect(verifySubscriptionToken(key, sign('abc'))).toBeNull();
  });
});
