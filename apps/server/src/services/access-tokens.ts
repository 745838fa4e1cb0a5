import { type KeyObject, randomUUID, sign } from 'node:crypto';
import type { AccessType, AuthTokenResult, Scope } from '@entry/domain';
import { type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import type { Config } from '../config.ts';
import type { SessionView } from '../stores/sessions.ts';
import type { SigningKeys } from './keys.ts';

/** The claims of a consumer's or staff user's access token. */
interface AccessClaims extends JWTPayload {
  scope: Scope;
  sid: string;
  accessType: AccessType;
  hasRestrictedAccess: boolean;
  tid: number | null;
  /** `name`: the staff user's or consumer's name, so a portal can say who is signed in without a call. */
  user: { name?: string; context: { roleId: number | null } };
  /** A launched customer session: the admin who launched it, for the portal's banner. */
  launchedBy?: { name: string };
  /** A consumer session opened through a link: its identity token, so the portal can read the link's data. */
  identityToken?: string;
}

export interface AccessTokens {
  /** The token pair of a session whose refresh token `refreshToken` has just been stored. */
  pairFor(view: SessionView, refreshToken: string): Promise<AuthTokenResult>;
  /** The claims of a token signed by one of our keys and unexpired (or expired, if allowed); else undefined. */
  verify(token: string, allowExpired: boolean): Promise<AccessClaims | undefined>;
}

export function subjectOf(session: Pick<SessionView, 'scope' | 'staffUserId' | 'consumerId'>): string {
  return `${session.scope}:${session.staffUserId ?? session.consumerId ?? 'anonymous'}`;
}

/** A consumer's name only once the session has full access: an MFA-pending token names no one. */
function nameOf(view: SessionView): string | undefined {
  if (view.consumerId === null) return view.staffName ?? undefined;
  if (view.hasRestrictedAccess) return undefined;
  return view.consumerName ?? undefined;
}

const base64urlJson = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWS (RFC 7515) signed with an Ed25519 key synchronously by node:crypto, which costs a
 * small part of what jose's WebCrypto signing does on the thread pool. Tokens are verified with jose.
 */
function signCompactJwt(header: { alg: 'EdDSA'; kid: string; typ: 'JWT' }, payload: object, key: KeyObject) {
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  return `${signingInput}.${sign(null, Buffer.from(signingInput), key).toString('base64url')}`;
}

export function createAccessTokens(
  config: Pick<Config, 'accessTokenMinutes' | 'refreshTokenMinutes' | 'clock'>,
  keys: SigningKeys,
): AccessTokens {
  const { clock } = config;

  async function signAccessToken(view: SessionView): Promise<string> {
    const key = await keys.active();
    const issuedAt = Math.floor(clock.now().getTime() / 1000);
    const name = nameOf(view);
    const claims: Omit<AccessClaims, keyof JWTPayload> = {
      scope: view.scope,
      sid: view.id,
      accessType: view.accessType,
      hasRestrictedAccess: view.hasRestrictedAccess,
      tid: view.tenantId,
      user: { ...(name === undefined ? {} : { name }), context: { roleId: view.roleId } },
      ...(view.launchedByName === null ? {} : { launchedBy: { name: view.launchedByName } }),
      ...(view.identityTokenGuid === null || view.hasRestrictedAccess
        ? {}
        : { identityToken: view.identityTokenGuid }),
    };
    return signCompactJwt(
      { alg: 'EdDSA', kid: key.kid, typ: 'JWT' },
      {
        ...claims,
        sub: subjectOf(view),
        iat: issuedAt,
        exp: issuedAt + config.accessTokenMinutes * 60,
        jti: randomUUID(),
      },
      key.privateKey,
    );
  }

  return {
    async pairFor(view, refreshToken) {
      return {
        accessToken: await signAccessToken(view),
        accessTokenExpiresIn: config.accessTokenMinutes,
        refreshToken,
        refreshTokenExpiresIn: config.refreshTokenMinutes,
        sessionGuid: view.id,
        accessType: view.accessType,
        hasRestrictedAccess: view.hasRestrictedAccess,
      };
    },

    async verify(token, allowExpired) {
      try {
        const { payload } = await jwtVerify<AccessClaims>(
          token,
          async (header) => {
            const key = header.kid === undefined ? undefined : await keys.publicKeyFor(header.kid);
            if (key === undefined) throw new joseErrors.JWKSNoMatchingKey();
            return key;
          },
          { algorithms: ['EdDSA'], currentDate: clock.now() },
        );
        return payload;
      } catch (error) {
        // The signature was checked before the expiry, so an expired token still names its session.
        if (allowExpired && error instanceof joseErrors.JWTExpired) return error.payload as AccessClaims;
        return undefined;
      }
    },
  };
}
