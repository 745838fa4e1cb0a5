import type { AuthTokenResult, Language } from '@entry/domain';
import type { Database } from '../db/index.ts';
import { type DirectSignInToken, runDirectSignIn } from '../stores/direct-sign-ins.ts';
import { isGuid, normaliseShortId } from '../stores/identity-token-ids.ts';
import type { SessionService } from './sessions.ts';

export type DirectSignInResult =
  /** No unrevoked token by that guid or short id belongs to the tenant named by both its id and subdomain. */
  | { outcome: 'unknown' }
  | {
      outcome: 'signed-in';
      token: DirectSignInToken;
      pair: AuthTokenResult;
      consumerLanguage: Language | null;
    }
  /** The token asks for verification first (a lookup sign-in). */
  | { outcome: 'not-direct'; token: DirectSignInToken }
  | { outcome: 'expired'; token: DirectSignInToken };

/**
 * A sign-in with a Direct link: the token must be unrevoked, of the tenant named by both its id and
 * subdomain, Direct and unexpired; the store checks and writes it all in one statement.
 */
export async function signInWithDirectLink(
  deps: { db: Database; sessions: SessionService },
  link: { token: string; customerId: number; subdomain: string },
  ip: string,
  roleId: number,
): Promise<DirectSignInResult> {
  const shortId = isGuid(link.token) ? null : normaliseShortId(link.token);
  if (!isGuid(link.token) && shortId === null) return { outcome: 'unknown' };
  const reserved = deps.sessions.reserve();
  const found = await runDirectSignIn(deps.db, {
    token:
      shortId === null
        ? { column: 'guid', value: link.token.toLowerCase() }
        : { column: 'short_id', value: shortId },
    customerId: link.customerId,
    subdomain: link.subdomain.toLowerCase(),
    session: { id: reserved.id, createdAt: reserved.createdAt, roleId },
    refreshToken: reserved.refreshToken,
    ip,
  });
  if (found === undefined) return { outcome: 'unknown' };
  const { token } = found;
  if (found.signedIn) {
    const pair = await reserved.firstPair(
      {
        scope: 'consumer',
        tenantId: token.tenantId,
        consumerId: token.consumerId,
        identityTokenGuid: token.guid,
        accessType: 'Consumer',
        hasRestrictedAccess: false,
        roleId,
      },
      { consumerName: found.consumerName, staffName: null, launchedByName: null },
    );
    return { outcome: 'signed-in', token, pair, consumerLanguage: found.consumerLanguage };
  }
  if (found.signInType !== 'Direct') return { outcome: 'not-direct', token };
  return { outcome: 'expired', token };
}
