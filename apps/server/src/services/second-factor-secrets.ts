import { createCipheriv, createDecipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import { productName } from '@entry/domain';
import { HOTP, Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import { keyedHash } from './keyed-hash.ts';

/**
 * The secrets of staff second factors: authenticator-app secrets sealed with AES-256-GCM under
 * the configured key, RFC 6238 codes (30-second steps, SHA-1, 6 digits, as every app reads them),
 * and recovery codes kept only as keyed hashes.
 */

export const totpPeriodSeconds = 30;
/** Steps either side of now whose code is still accepted: a phone's clock a little off. */
const totpDriftSteps = 1;
const recoveryCodeCount = 10;

const sealedVersion = 'v1';

/** `v1.{iv}.{tag}.{ciphertext}` in base64url: the base32 secret sealed under `key`. */
export function sealSecret(key: Buffer, secretBase32: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(secretBase32, 'utf8'), cipher.final()]);
  return [sealedVersion, iv, cipher.getAuthTag(), sealed]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** The base32 secret `sealSecret` sealed; throws when the key or the text is not the one sealed. */
export function openSecret(key: Buffer, sealed: string): string {
  const [version, iv, tag, text] = sealed.split('.');
  if (version !== sealedVersion || iv === undefined || tag === undefined || text === undefined) {
    throw new Error('not a sealed second-factor secret');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8');
}

/** A new authenticator secret: 20 random bytes (RFC 4226's recommended length), base32. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export const totpStepAt = (at: Date) => Math.floor(at.getTime() / 1000 / totpPeriodSeconds);

/** The code an authenticator app shows at time step `step`. */
export function totpCodeAtStep(secretBase32: string, step: number): string {
  return HOTP.generate({ secret: Secret.fromBase32(secretBase32), counter: step, digits: 6 });
}

/** The code an authenticator app shows at `at`. */
export const totpCodeAt = (secretBase32: string, at: Date) => totpCodeAtStep(secretBase32, totpStepAt(at));

const sameText = (left: string, right: string) => {
  const a = Buffer.from(left, 'utf8');
  const b = Buffer.from(right, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The time step whose code `code` is, within the drift around `at`, or undefined. Every step is
 * compared, in constant time, so the answer takes as long whichever matched.
 */
export function matchingTotpStep(secretBase32: string, code: string, at: Date): number | undefined {
  const now = totpStepAt(at);
  let found: number | undefined;
  for (let step = now - totpDriftSteps; step <= now + totpDriftSteps; step++) {
    if (sameText(totpCodeAtStep(secretBase32, step), code.trim()) && found === undefined) found = step;
  }
  return found;
}

/** The `otpauth://` URI an authenticator app reads from the QR code: issuer the product, label the username. */
export function otpauthUri(secretBase32: string, username: string): string {
  return new TOTP({
    issuer: productName,
    label: username,
    secret: Secret.fromBase32(secretBase32),
    digits: 6,
    period: totpPeriodSeconds,
    algorithm: 'SHA1',
  }).toString();
}

export function qrCodeSvg(text: string): string {
  return renderSVG(text, { ecc: 'M', pixelSize: 6 });
}

const base32Alphabet = 'abcdefghijklmnopqrstuvwxyz234567';

/** Ten new recovery codes, `xxxxx-xxxxx` of lowercase base32 (50 random bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: recoveryCodeCount }, () => {
    const letters = [...randomBytes(10)].map((byte) => base32Alphabet[byte % 32]).join('');
    return `${letters.slice(0, 5)}-${letters.slice(5)}`;
  });
}

/** A recovery code as typed, without case, spaces or dashes; null when it cannot be one. */
function normaliseRecoveryCode(typed: string): string | null {
  const value = typed.trim().toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z2-7]{10}$/.test(value) ? value : null;
}

/** The stored form of a recovery code (as shown or as typed): its keyed hash. */
export function hashRecoveryCode(pepper: string, code: string): string | null {
  const normalised = normaliseRecoveryCode(code);
  return normalised === null ? null : keyedHash(pepper, `staff-recovery-code:${normalised}`);
}
