import { createHmac, timingSafeEqual } from 'node:crypto';
import type { VerificationField } from '@entry/domain';

/**
 * Verification values (last four SSN digits, ZIP code, date of birth) are stored only as keyed
 * hashes: HMAC-SHA256 with `KBA_PEPPER` (docs/rules.md#verification). The hash is deterministic so a
 * token-less verification can find the consumer by equality in the database; the pepper keeps a
 * stolen table from being reversed by hashing the small value spaces.
 */

/** The canonical form hashed for each field, or null when the value cannot be one of that field. */
export function normaliseVerificationValue(field: VerificationField, raw: string): string | null {
  const value = raw.trim();
  switch (field) {
    case 'last4Ssn': {
      // A full SSN (123-45-6789) or its last four digits both reduce to the last four digits.
      if (!/^[\d\s-]+$/.test(value)) return null;
      const digits = value.replace(/\D/g, '');
      return digits.length === 4 || digits.length === 9 ? digits.slice(-4) : null;
    }
    case 'postalCode': {
      // ZIP+4 (90210-1234) counts as its 5-digit ZIP.
      const match = /^(\d{5})(?:-?\d{4})?$/.exec(value);
      return match?.[1] ?? null;
    }
    case 'dateOfBirth':
      return isCalendarDate(value) ? value : null;
  }
}

function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * The stored hash of a verification value (hex). The field name is part of the hashed message so
 * that equal digits in two fields never share a hash. Null when the value is not valid for the field.
 */
export function hashVerificationValue(pepper: string, field: VerificationField, raw: string): string | null {
  const normalised = normaliseVerificationValue(field, raw);
  if (normalised === null) return null;
  return keyedHash(pepper, `${field}:${normalised}`);
}

/** HMAC-SHA256 of `message` under the pepper, hex: the stored form of a secret looked up by equality. */
export function keyedHash(pepper: string, message: string): string {
  return createHmac('sha256', pepper).update(message).digest('hex');
}

/** Compares two hex digests without revealing through timing where they differ. */
export function hashesEqual(left: string, right: string): boolean {
  const a = Buffer.from(left, 'utf8');
  const b = Buffer.from(right, 'utf8');
  if (a.length !== b.length) return false;
  return timingSafeEqual(a, b);
}

/** Whether an answer matches the stored hash; an answer that is not a valid value never matches. */
export function verificationValueMatches(
  pepper: string,
  field: VerificationField,
  answer: string,
  storedHash: string | null,
): boolean {
  if (storedHash === null) return false;
  const answerHash = hashVerificationValue(pepper, field, answer);
  if (answerHash === null) return false;
  return hashesEqual(answerHash, storedHash);
}
