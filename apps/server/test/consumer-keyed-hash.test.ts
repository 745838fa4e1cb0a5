import { describe, expect, it } from 'vitest';
import {
  hashesEqual,
  hashVerificationValue,
  normaliseVerificationValue,
  verificationValueMatches,
} from '../src/services/keyed-hash.ts';

const pepper = 'test-pepper-0123456789';

describe('normaliseVerificationValue', () => {
  it.each([
    ['last4Ssn', '1234', '1234'],
    ['last4Ssn', ' 1234 ', '1234'],
    ['last4Ssn', '123-45-6789', '6789'],
    ['last4Ssn', '123456789', '6789'],
    ['last4Ssn', '123', null],
    ['last4Ssn', '12345', null],
    ['last4Ssn', '12a4', null],
    ['postalCode', '90210', '90210'],
    ['postalCode', '90210-1234', '90210'],
    ['postalCode', '902101234', '90210'],
    ['postalCode', '9021', null],
    ['postalCode', '90210-12', null],
    ['dateOfBirth', '1980-04-15', '1980-04-15'],
    ['dateOfBirth', '1980-02-30', null],
    ['dateOfBirth', '1980-4-15', null],
    ['dateOfBirth', '04/15/1980', null],
  ] as const)('%s %j -> %j', (field, raw, expected) => {
    expect(normaliseVerificationValue(field, raw)).toBe(expected);
  });
});

describe('hashVerificationValue', () => {
  it('hashes equal values equally after normalisation', () => {
    expect(hashVerificationValue(pepper, 'postalCode', '90210-1234')).toBe(
      hashVerificationValue(pepper, 'postalCode', '90210'),
    );
  });

  it('depends on the pepper, so a stolen table cannot be reversed without it', () => {
    expect(hashVerificationValue(pepper, 'last4Ssn', '1234')).not.toBe(
      hashVerificationValue('another-pepper-0123', 'last4Ssn', '1234'),
    );
  });

  it('separates fields that share digits', () => {
    expect(hashVerificationValue(pepper, 'last4Ssn', '123-45-1234')).not.toBe(
      hashVerificationValue(pepper, 'postalCode', '01234'),
    );
    expect(hashVerificationValue(pepper, 'last4Ssn', '1234')).not.toContain('1234');
  });

  it('refuses values that are not of the field', () => {
    expect(hashVerificationValue(pepper, 'dateOfBirth', 'yesterday')).toBeNull();
  });
});

describe('verificationValueMatches', () => {
  const stored = hashVerificationValue(pepper, 'dateOfBirth', '1980-04-15');

  it.each([
    ['1980-04-15', true],
    ['1980-04-16', false],
    ['not a date', false],
  ])('answer %j matches: %s', (answer, expected) => {
    expect(verificationValueMatches(pepper, 'dateOfBirth', answer, stored)).toBe(expected);
  });

  it('never matches when nothing is on file', () => {
    expect(verificationValueMatches(pepper, 'dateOfBirth', '1980-04-15', null)).toBe(false);
  });

  it('compares digests of different lengths as unequal', () => {
    expect(hashesEqual('abcd', 'abc')).toBe(false);
    expect(hashesEqual('abcd', 'abcd')).toBe(true);
  });
});
