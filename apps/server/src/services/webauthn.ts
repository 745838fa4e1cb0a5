import { createHmac, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import type { StaffKind } from '@entry/domain';
import { productName } from '@entry/domain';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { z } from 'zod';
import { appsOrigin, type Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { PasskeyDeviceType, WebauthnPurpose } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import type { StaffPasskey } from '../stores/staff-passkeys.ts';
import { claimChallenge, insertChallenge, recordAnsweredChallenge } from '../stores/webauthn-challenges.ts';

/**
 * The WebAuthn ceremonies of staff passkeys, with @simplewebauthn/server: the relying party is
 * PUBLIC_DOMAIN, the only origin the apps host (where the staff portals live), user verification
 * is always required, and every challenge is used once within five minutes.
 */

export const challengeLifetimeMs = 5 * 60_000;

/** The library is loaded with the first ceremony, so an instance whose staff use no passkey never holds it (decision record 029). */
const webauthnLibrary = () => import('@simplewebauthn/server');

/**
 * The ceremony's bounds, from the configuration. Browsers refuse a single-label domain such as
 * `localhost` as the relying party of its subdomains, so there the apps host itself is the party.
 */
function relyingParty(config: Config) {
  const origin = appsOrigin(config);
  const rpID = config.publicDomain.includes('.') ? config.publicDomain : new URL(origin).hostname;
  return { rpID, origin };
}

/** Whose challenge it is: its use, the staff kind, and the session that asked (null: none). */
export interface ChallengeOwner {
  purpose: WebauthnPurpose;
  kind: StaffKind;
  sessionId: string | null;
}

interface ChallengeDeps {
  config: Config;
  db: Database;
  secondFactorKey: Buffer;
}

/** A challenge anyone may ask for: a usernameless sign-in's, which no session owns. */
const isSigned = (owner: ChallengeOwner) => owner.purpose === 'authentication' && owner.sessionId === null;

/** A version 7 UUID: the instant `at` in its first 48 bits, random bits after it. */
function timeOrderedId(at: Date): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(at.getTime(), 0, 6);
  bytes.writeUInt8(((bytes[6] ?? 0) & 0x0f) | 0x70, 6);
  bytes.writeUInt8(((bytes[8] ?? 0) & 0x3f) | 0x80, 8);
  const hex = bytes.toString('hex');
  return [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].join('-');
}

/** The instant a version 7 UUID carries; undefined for any other id. */
function instantOf(id: string): Date | undefined {
  const hex = id.replaceAll('-', '').toLowerCase();
  if (!/^[0-9a-f]{12}7[0-9a-f]{19}$/.test(hex)) return undefined;
  return new Date(Number.parseInt(hex.slice(0, 12), 16));
}

/**
 * The bytes of a signed challenge: a keyed hash of its kind and id, which holds the instant it was
 * made, so any instance can tell it made them and when without a stored row (decision record 032).
 * The key is one of its own, derived from the second-factor key.
 */
function signedChallengeBytes(secondFactorKey: Buffer, kind: StaffKind, id: string): Buffer {
  return createHmac('sha256', challengeKeyOf(secondFactorKey)).update(`${kind}:${id}`).digest();
}

/** Each second-factor key's derived challenge key, derived once. */
const challengeKeys = new WeakMap<Buffer, Buffer>();

function challengeKeyOf(secondFactorKey: Buffer): Buffer {
  let key = challengeKeys.get(secondFactorKey);
  if (key === undefined) {
    key = Buffer.from(hkdfSync('sha256', secondFactorKey, '', 'webauthn usernameless challenges', 32));
    challengeKeys.set(secondFactorKey, key);
  }
  return key;
}

/**
 * A new challenge of 32 bytes for `owner`: its id, which the client sends back, and its bytes. A
 * usernameless sign-in's is signed and stored nowhere, so asking for options writes nothing; any
 * other is random and stored (base64url) for its session.
 */
async function newChallenge(deps: ChallengeDeps, owner: ChallengeOwner) {
  const now = deps.config.clock.now();
  if (isSigned(owner)) {
    const id = timeOrderedId(now);
    return { id, bytes: new Uint8Array(signedChallengeBytes(deps.secondFactorKey, owner.kind, id)) };
  }
  const id = randomUUID();
  const bytes = randomBytes(32);
  const expiresAt = new Date(now.getTime() + challengeLifetimeMs);
  await insertChallenge(deps.db, {
    id,
    challenge: bytes.toString('base64url'),
    ...owner,
    expiresAt,
  });
  return { id, bytes };
}

/**
 * Uses the challenge `id` once, if it is `owner`'s and still live: its bytes, base64url, or
 * undefined. A signed challenge is recorded as answered, so a second answer finds it taken.
 */
export async function takeChallenge(
  deps: ChallengeDeps,
  id: string,
  owner: ChallengeOwner,
): Promise<string | undefined> {
  const now = deps.config.clock.now();
  if (!isSigned(owner)) return claimChallenge(deps.db, { id, ...owner, now });
  const madeAt = instantOf(id);
  if (madeAt === undefined) return undefined;
  const expiresAt = new Date(madeAt.getTime() + challengeLifetimeMs);
  if (expiresAt <= now) return undefined;
  const challenge = signedChallengeBytes(deps.secondFactorKey, owner.kind, id).toString('base64url');
  const recorded = await recordAnsweredChallenge(deps.db, {
    id,
    challenge,
    ...owner,
    expiresAt,
    usedAt: now,
  });
  return recorded ? challenge : undefined;
}

const descriptorsOf = (passkeys: readonly StaffPasskey[]) =>
  passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports }));

/** The user a registration names: its handle (opaque bytes), username and display name. */
export interface RegisteringUser {
  handle: Uint8Array<ArrayBuffer>;
  username: string;
  displayName: string;
}

/**
 * Options to create a discoverable passkey (resident key and user verification required) that is
 * none of `existing`, and the challenge they carry, stored for the session that asked.
 */
export async function registrationOptions(
  deps: ChallengeDeps,
  owner: Omit<ChallengeOwner, 'purpose'>,
  user: RegisteringUser,
  existing: readonly StaffPasskey[],
): Promise<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }> {
  const challenge = await newChallenge(deps, { ...owner, purpose: 'registration' });
  const options = await (await webauthnLibrary()).generateRegistrationOptions({
    rpName: productName,
    rpID: relyingParty(deps.config).rpID,
    userID: user.handle,
    userName: user.username,
    userDisplayName: user.displayName,
    challenge: challenge.bytes,
    timeout: challengeLifetimeMs,
    attestationType: 'none',
    excludeCredentials: descriptorsOf(existing),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { challengeId: challenge.id, options };
}

/** Options to sign in with one of `allowed`, or with any discoverable passkey when none are named. */
export async function authenticationOptions(
  deps: ChallengeDeps,
  owner: Omit<ChallengeOwner, 'purpose'>,
  allowed: readonly StaffPasskey[],
): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> {
  const challenge = await newChallenge(deps, { ...owner, purpose: 'authentication' });
  const options = await (await webauthnLibrary()).generateAuthenticationOptions({
    rpID: relyingParty(deps.config).rpID,
    allowCredentials: descriptorsOf(allowed),
    challenge: challenge.bytes,
    timeout: challengeLifetimeMs,
    userVerification: 'required',
  });
  return { challengeId: challenge.id, options };
}

const base64url = z.string().regex(/^[A-Za-z0-9_-]+$/);
const transportsSchema = z.array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']));
/** Extension outputs are read by no check here: they are dropped. */
const extensionResults = z.record(z.string(), z.unknown()).transform(() => ({}));
const credentialFields = {
  id: base64url,
  rawId: base64url,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['cross-platform', 'platform']).optional(),
  clientExtensionResults: extensionResults,
};

/** The JSON `navigator.credentials.create` gave, as @simplewebauthn/browser sends it. */
const registrationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url,
    attestationObject: base64url,
    transports: transportsSchema.optional(),
  }),
}) satisfies z.ZodType<RegistrationResponseJSON>;

/** The JSON `navigator.credentials.get` gave, as @simplewebauthn/browser sends it. */
const authenticationResponseSchema = z.object({
  ...credentialFields,
  response: z.object({
    clientDataJSON: base64url,
    authenticatorData: base64url,
    signature: base64url,
    userHandle: base64url.optional(),
  }),
}) satisfies z.ZodType<AuthenticationResponseJSON>;

function parseResponse<T>(schema: z.ZodType<T>, response: unknown): T {
  const parsed = schema.safeParse(response);
  if (!parsed.success) throw refuse('invalidValue', { fields: ['response'] });
  return parsed.data;
}

/** A passkey the authenticator created, as it is stored. */
export interface CreatedPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string[];
  deviceType: PasskeyDeviceType;
  backedUp: boolean;
}

/**
 * Checks a registration response against its challenge, the relying party and the apps origin,
 * with user verification; answers the passkey it created, or undefined when the check fails.
 */
export async function verifyRegistration(
  config: Config,
  response: unknown,
  expectedChallenge: string,
): Promise<CreatedPasskey | undefined> {
  const parsed = parseResponse(registrationResponseSchema, response);
  const { rpID, origin } = relyingParty(config);
  const verified = await (await webauthnLibrary())
    .verifyRegistrationResponse({
      response: parsed,
      expectedChallenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    })
    .catch(() => undefined);
  if (verified?.verified !== true) return undefined;
  const info = verified.registrationInfo;
  return {
    credentialId: info.credential.id,
    publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
    counter: info.credential.counter,
    transports: parsed.response.transports ?? [],
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
}

/** An assertion as the browser sent it, its shape checked; nothing in it is verified yet. */
export type Assertion = AuthenticationResponseJSON;

export const parseAssertion = (response: unknown): Assertion =>
  parseResponse(authenticationResponseSchema, response);

/** What a verified assertion says about its passkey now. */
export interface VerifiedAssertion {
  counter: number;
  backedUp: boolean;
}

/**
 * Checks an assertion by `passkey` against its challenge, the relying party and the apps origin,
 * with user verification and a counter that moved on (a cloned authenticator's does not); answers
 * the passkey's new counter and backup state, or undefined when the check fails.
 */
export async function verifyAssertion(
  config: Config,
  assertion: Assertion,
  expectedChallenge: string,
  passkey: StaffPasskey,
): Promise<VerifiedAssertion | undefined> {
  const { rpID, origin } = relyingParty(config);
  const verified = await (await webauthnLibrary())
    .verifyAuthenticationResponse({
      response: assertion,
      expectedChallenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
      credential: {
        id: passkey.credentialId,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: passkey.counter,
        transports: passkey.transports,
      },
    })
    .catch(() => undefined);
  if (verified?.verified !== true) return undefined;
  return {
    counter: verified.authenticationInfo.newCounter,
    backedUp: verified.authenticationInfo.credentialBackedUp,
  };
}
