import { randomBytes } from 'node:crypto';

/**
 * Short ids of identity tokens: 10 Crockford base32 characters (50 random bits) for letters where
 * a person types the code (docs/rules.md#identity-tokens). Only tokens that require verification get one.
 */

const crockfordAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const shortIdLength = 10;

export function generateShortId(): string {
  // 32 divides 256, so taking 5 bits of each byte keeps every character equally likely.
  const bytes = randomBytes(shortIdLength);
  let id = '';
  for (const byte of bytes) id += crockfordAlphabet.charAt(byte & 31);
  return id;
}

/**
 * The canonical short id a person meant, or null: Crockford decoding ignores case and hyphens and
 * reads I and L as 1 and O as 0, the characters people confuse when they copy a code from paper.
 */
export function normaliseShortId(input: string): string | null {
  const canonical = input.replace(/-/g, '').toUpperCase().replace(/[IL]/g, '1').replace(/O/g, '0');
  if (canonical.length !== shortIdLength) return null;
  for (const character of canonical) if (!crockfordAlphabet.includes(character)) return null;
  return canonical;
}

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isGuid(input: string): boolean {
  return guidPattern.test(input);
}
