import { describe, expect, it } from 'vitest';
import { generateShortId, isGuid, normaliseShortId } from '../src/stores/identity-token-ids.ts';

describe('generateShortId', () => {
  it('is 10 Crockford base32 characters', () => {
    for (let i = 0; i < 200; i += 1) expect(generateShortId()).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}$/);
  });

  it('does not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, generateShortId));
    expect(ids.size).toBe(1000);
  });
});

describe('normaliseShortId', () => {
  it.each([
    ['7K3M9Q2XZC', '7K3M9Q2XZC'],
    ['7k3m9q2xzc', '7K3M9Q2XZC'],
    ['7K3M9-Q2XZC', '7K3M9Q2XZC'],
    ['IL0O000000', '1100000000'],
    ['7K3M9Q2XZ', null],
    ['7K3M9Q2XZCA', null],
    ['7K3M9Q2XZU', null],
    ['7K3M9Q2XZ!', null],
  ])('%j -> %j', (input, expected) => {
    expect(normaliseShortId(input)).toBe(expected);
  });
});

describe('isGuid', () => {
  it.each([
    ['0f8fad5b-d9cb-469f-a165-70867728950e', true],
    ['0F8FAD5B-D9CB-469F-A165-70867728950E', true],
    ['0f8fad5b-d9cb-469f-a165-70867728950', false],
    ['7K3M9Q2XZC', false],
  ])('%j -> %s', (input, expected) => {
    expect(isGuid(input)).toBe(expected);
  });
});
