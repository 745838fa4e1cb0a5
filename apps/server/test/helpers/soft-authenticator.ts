import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { z } from 'zod';

/**
 * A software authenticator for tests: EC P-256 keys made with node:crypto, and registration
 * ('none' attestation) and assertion responses built byte by byte as WebAuthn (Level 2) describes
 * them, so the server's verifier checks real signatures over real authenticator data. Its own
 * small CBOR encoder keeps it independent of the library under test.
 */

type Cbor = number | string | Uint8Array | CborMap;
type CborMap = Map<number | string, Cbor>;

function cborHead(major: number, length: number): Buffer {
  if (length < 24) return Buffer.from([(major << 5) | length]);
  if (length < 0x100) return Buffer.from([(major << 5) | 24, length]);
  if (length < 0x10000) {
    const head = Buffer.alloc(3);
    head[0] = (major << 5) | 25;
    head.writeUInt16BE(length, 1);
    return head;
  }
  const head = Buffer.alloc(5);
  head[0] = (major << 5) | 26;
  head.writeUInt32BE(length, 1);
  return head;
}

function cbor(value: Cbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([cborHead(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  const entries = [...value.entries()].flatMap(([key, entry]) => [cbor(key), cbor(entry)]);
  return Buffer.concat([cborHead(5, value.size), ...entries]);
}

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest();

const flag = { userPresent: 0x01, userVerified: 0x04, backupEligible: 0x08, backedUp: 0x10, attested: 0x40 };

/** The options a registration call answers, as far as an authenticator reads them. */
const creationOptionsSchema = z.object({
  challenge: z.string(),
  rp: z.object({ id: z.string() }),
  user: z.object({ id: z.string() }),
  excludeCredentials: z.array(z.object({ id: z.string() })).default([]),
});

const requestOptionsSchema = z.object({
  challenge: z.string(),
  rpId: z.string(),
  allowCredentials: z.array(z.object({ id: z.string() })).default([]),
});

interface SoftCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

/** A credential as @simplewebauthn/browser sends it: its id, and the authenticator's `response`. */
interface SoftCredentialJson<Response> {
  id: string;
  rawId: string;
  type: 'public-key';
  clientExtensionResults: Record<string, never>;
  response: Response;
}

export type SoftRegistration = SoftCredentialJson<{
  clientDataJSON: string;
  attestationObject: string;
  transports: string[];
}>;

export type SoftAssertion = SoftCredentialJson<{
  clientDataJSON: string;
  authenticatorData: string;
  signature: string;
  userHandle: string;
}>;

const credentialJson = <Response>(
  credential: SoftCredential,
  response: Response,
): SoftCredentialJson<Response> => ({
  id: credential.id,
  rawId: credential.id,
  type: 'public-key',
  clientExtensionResults: {},
  response,
});

/** What a test changes about one response: the page's origin, the flags, the counter, the credential. */
export interface ResponseTweaks {
  origin?: string;
  userVerified?: boolean;
  /** The counter to report instead of the next one. */
  counter?: number;
  /** The credential to answer with, when several fit (a usernameless sign-in picks the newest). */
  credentialId?: string;
}

export class SoftAuthenticator {
  readonly credentials: SoftCredential[] = [];

  /**
   * @param origin the page's origin, which the browser writes into clientDataJSON
   * @param backedUp whether the credentials are synced (backup eligible and backed up)
   */
  constructor(
    readonly origin: string,
    readonly backedUp = false,
  ) {}

  #flags(userVerified: boolean, attested: boolean): number {
    let flags = flag.userPresent;
    if (userVerified) flags |= flag.userVerified;
    if (this.backedUp) flags |= flag.backupEligible | flag.backedUp;
    if (attested) flags |= flag.attested;
    return flags;
  }

  #clientData(type: 'webauthn.create' | 'webauthn.get', challenge: string, origin: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }), 'utf8');
  }

  /** Answers `navigator.credentials.create` with `options` (a registration call's `options`). */
  register(options: unknown, tweaks: ResponseTweaks = {}): SoftRegistration {
    const parsed = creationOptionsSchema.parse(options);
    const excluded = new Set(parsed.excludeCredentials.map((credential) => credential.id));
    if (this.credentials.some((credential) => excluded.has(credential.id))) {
      throw new Error('InvalidStateError: this authenticator holds an excluded credential');
    }
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const idBytes = randomBytes(16);
    const credential: SoftCredential = {
      id: base64url(idBytes),
      rpId: parsed.rp.id,
      userHandle: parsed.user.id,
      privateKey,
      counter: 0,
    };
    const jwk = publicKey.export({ format: 'jwk' });
    if (jwk.x === undefined || jwk.y === undefined) throw new Error('the key has no coordinates');
    const coseKey: CborMap = new Map<number, Cbor>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x, 'base64url')],
      [-3, Buffer.from(jwk.y, 'base64url')],
    ]);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(idBytes.length);
    const authenticatorData = Buffer.concat([
      sha256(parsed.rp.id),
      Buffer.from([this.#flags(tweaks.userVerified ?? true, true)]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      idBytes,
      cbor(coseKey),
    ]);
    const attestationObject = cbor(
      new Map<string, Cbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authenticatorData],
      ]),
    );
    this.credentials.push(credential);
    return credentialJson(credential, {
      clientDataJSON: base64url(
        this.#clientData('webauthn.create', parsed.challenge, tweaks.origin ?? this.origin),
      ),
      attestationObject: base64url(attestationObject),
      transports: ['internal'],
    });
  }

  /** Answers `navigator.credentials.get` with `options` (a sign-in options call's `options`). */
  authenticate(options: unknown, tweaks: ResponseTweaks = {}): SoftAssertion {
    const parsed = requestOptionsSchema.parse(options);
    const allowed = new Set(parsed.allowCredentials.map((credential) => credential.id));
    const fitting = this.credentials.filter(
      (credential) =>
        credential.rpId === parsed.rpId &&
        (allowed.size === 0 || allowed.has(credential.id)) &&
        (tweaks.credentialId === undefined || tweaks.credentialId === credential.id),
    );
    const credential = fitting.at(-1);
    if (credential === undefined) throw new Error('NotAllowedError: no credential fits');
    credential.counter = tweaks.counter ?? credential.counter + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(credential.counter);
    const authenticatorData = Buffer.concat([
      sha256(parsed.rpId),
      Buffer.from([this.#flags(tweaks.userVerified ?? true, false)]),
      counter,
    ]);
    const clientData = this.#clientData('webauthn.get', parsed.challenge, tweaks.origin ?? this.origin);
    const signature = sign(
      'sha256',
      Buffer.concat([authenticatorData, sha256(clientData)]),
      credential.privateKey,
    );
    return credentialJson(credential, {
      clientDataJSON: base64url(clientData),
      authenticatorData: base64url(authenticatorData),
      signature: base64url(signature),
      userHandle: credential.userHandle,
    });
  }
}
