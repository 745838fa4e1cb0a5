import { randomBytes, randomUUID } from 'node:crypto';
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
import type { PasskeyDeviceType, StaffKind, WebauthnPurpose } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import type { StaffPasskey } from '../stores/staff-passkeys.ts';
import { claimChallenge, insertChallenge } from '../stores/webauthn-challenges.ts';

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
}

/**
 * A new challenge of 32 random bytes, stored (base64url) for `owner`: its id, which the client
 * sends back, and its bytes.
 */
async function newChallenge(deps: ChallengeDeps, owner: ChallengeOwner) {
  const id = randomUUID();
  const bytes = randomBytes(32);
  const expiresAt = new Date(deps.config.clock.now().getTime() + challengeLifetimeMs);
  await insertChallenge(deps.db, {
    id,
    challenge: bytes.toString('base64url'),
    ...owner,
    expiresAt,
  });
  return { id, bytes };
}

/** Uses the challenge `id` once, if it is `owner`'s and still live: its bytes, base64url, or undefined. */
export function takeChallenge(
  deps: ChallengeDeps,
  id: string,
  owner: ChallengeOwner,
): Promise<string | undefined> {
  return claimChallenge(deps.db, { id, ...owner, now: deps.config.clock.now() });
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
