import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { Config } from '../config.ts';
import { ConfigError } from '../config-values.ts';
import type { Database } from '../db/index.ts';
import {
  allSigningKeys,
  insertSigningKey,
  type NewSigningKey,
  replaceSigningKeys,
  signingKeysInUse,
} from '../stores/signing-keys.ts';

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/**
 * How often a running instance reads the key table again, so a key rotated by the CLI (or on
 * another instance) signs every new token within this time without a restart.
 */
export const signingKeyReloadMs = 60_000;

/**
 * How long after a reading of the key table a token of an unknown `kid` is refused without
 * reading it again: such tokens, forged at any rate, must not make the server read it per request.
 */
const unknownKeyReloadMs = 10_000;

/** A signing key's public half as the JWKS lists it (RFC 8037: an Ed25519 key is an OKP key). */
interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

export interface SigningKeys {
  /** The newest key that is not retired: new tokens are signed with it. */
  active(): Promise<SigningKey>;
  /**
   * The public key for a token's `kid`, reading the table again for a key another instance added,
   * at most once every `unknownKeyReloadMs`.
   */
  publicKeyFor(kid: string): Promise<KeyObject | undefined>;
  /** Every public key whose tokens may still be valid (docs/rules.md#sessions). */
  jwks(): Promise<{ keys: PublicJwk[] }>;
}

function publicJwkOf(publicKey: KeyObject): { kty: string; crv: string; x: string } {
  const jwk = publicKey.export({ format: 'jwk' });
  return { kty: String(jwk.kty), crv: String(jwk.crv), x: String(jwk.x) };
}

function fromPem(pem: string): { privateKey: KeyObject; publicKey: KeyObject } {
  const privateKey = createPrivateKey({ key: pem, format: 'pem' });
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new ConfigError('AUTH_SIGNING_KEY', 'must be an Ed25519 private key in PKCS#8 PEM');
  }
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/** A new Ed25519 private key in PKCS#8 PEM: what AUTH_SIGNING_KEY holds. */
export function generateSigningKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ed25519');
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

async function keyRowOf(pem: string, now: Date): Promise<NewSigningKey> {
  const publicJwk = publicJwkOf(fromPem(pem).publicKey);
  return { kid: await calculateJwkThumbprint(publicJwk), publicJwk, privatePkcs8: pem, createdAt: now };
}

/**
 * Loads the key table, first adding AUTH_SIGNING_KEY when set (its id is its JWK thumbprint, so
 * every instance adds the same row). On the embedded database a first start generates a key;
 * PostgreSQL needs AUTH_SIGNING_KEY on its first start, so instances never race to make their own.
 */
export async function loadSigningKeys(
  db: Database,
  config: Pick<Config, 'authSigningKey' | 'databaseUrl' | 'accessTokenMinutes' | 'clock'>,
): Promise<SigningKeys> {
  if (config.authSigningKey !== undefined) {
    await insertSigningKey(db, await keyRowOf(config.authSigningKey, config.clock.now()));
  }
  const byKid = new Map<string, SigningKey>();
  let newest: SigningKey | undefined;
  let loadedAt = config.clock.now().getTime();

  let reloading: Promise<void> | undefined;

  const reload = async () => {
    loadedAt = config.clock.now().getTime();
    const rows = await allSigningKeys(db);
    newest = undefined;
    for (const row of rows) {
      const key = { kid: row.kid, ...fromPem(row.privatePkcs8) };
      byKid.set(row.kid, key);
      if (newest === undefined && row.retiredAt === null) newest = key;
    }
  };

  await reload();
  if (newest === undefined) {
    if (config.databaseUrl !== undefined) {
      throw new ConfigError('AUTH_SIGNING_KEY', 'is required on the first start with DATABASE_URL');
    }
    await insertSigningKey(db, await keyRowOf(generateSigningKeyPem(), config.clock.now()));
    await reload();
  }
  const active = newest;
  if (active === undefined) throw new Error('No signing key could be loaded');

  return {
    async active() {
      if (config.clock.now().getTime() - loadedAt >= signingKeyReloadMs) await reload();
      return newest ?? active;
    },
    async publicKeyFor(kid) {
      const known = byKid.get(kid);
      if (known !== undefined) return known.publicKey;
      // Requests of one burst share the reading in flight; later ones wait for the next interval.
      if (reloading === undefined) {
        if (config.clock.now().getTime() - loadedAt < unknownKeyReloadMs) return undefined;
        reloading = reload().finally(() => {
          reloading = undefined;
        });
      }
      await reloading;
      return byKid.get(kid)?.publicKey;
    },
    async jwks() {
      // A retired key may still sign until every instance has reloaded, then its tokens live on.
      const usableFor = config.accessTokenMinutes * 60_000 + signingKeyReloadMs;
      const oldestUsable = new Date(config.clock.now().getTime() - usableFor);
      const rows = await signingKeysInUse(db, oldestUsable);
      return {
        keys: rows.map((row) => ({
          ...row.publicJwk,
          kid: row.kid,
          alg: 'EdDSA' as const,
          use: 'sig' as const,
        })),
      };
    },
  };
}

/**
 * Key rotation (`keys rotate`): adds a new key, which signs every token from then on, and retires
 * the keys before it. Running instances pick the new key up within `signingKeyReloadMs`; `jwks()`
 * keeps a retired key's public half for that time plus one access-token lifetime, until the last
 * token it signed has expired.
 */
export async function rotateSigningKey(
  db: Database,
  now: Date,
  pem: string = generateSigningKeyPem(),
): Promise<{ kid: string; retired: string[] }> {
  const key = await keyRowOf(pem, now);
  return { kid: key.kid, retired: await replaceSigningKeys(db, key) };
}
