import { describe, expect, it } from 'vitest';
import { landingPath } from './landing.ts';

describe('landingPath', () => {
  it.each([
    ['payment-options/77', '/c/payment-options/77?session-guid=s-1'],
    ['account-summary', '/c/account-summary?session-guid=s-1'],
    ['', '/c/?session-guid=s-1'],
    [null, '/c/?session-guid=s-1'],
    ['//evil.example/x', '/c/?session-guid=s-1'],
    ['https://evil.example', '/c/?session-guid=s-1'],
  ])('lands a link targeting %j on %s', (stored, expected) => {
    expect(landingPath({ getItem: () => stored }, 's-1')).toBe(expected);
  });
});
