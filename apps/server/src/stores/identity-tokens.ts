import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Clock } from '../config.ts';
import { type Database, oncePerHandle } from '../db/index.ts';
import { consumers, identityTokens, tenants } from '../db/schema.ts';
import { isGuid, normaliseShortId } from './identity-token-ids.ts';
import { readCacheFor } from './read-cache.ts';

/** An identity token with what the calls around it need from its consumer and tenant. */
export interface IdentityTokenRecord {
  token: typeof identityTokens.$inferSelect;
  consumer: { id: number; consumerId: string; email: string | null };
  tenant: { id: number; subdomain: string; mfaRequired: boolean };
}

function tokenQuery(db: Database, by: 'guid' | 'shortId', name: string) {
  const column = by === 'guid' ? identityTokens.guid : identityTokens.shortId;
  return db
    .select({
      token: identityTokens,
      consumer: consumers,
      tenant: { id: tenants.id, subdomain: tenants.subdomain, settings: tenants.settings },
    })
    .from(identityTokens)
    .innerJoin(consumers, eq(consumers.id, identityTokens.consumerId))
    .innerJoin(tenants, eq(tenants.id, identityTokens.tenantId))
    .where(and(eq(column, sql.placeholder('token')), isNull(identityTokens.revokedAt)))
    .limit(1)
    .prepare(name);
}

type TokenQuery = ReturnType<typeof tokenQuery>;

/**
 * A direct sign-in reads its token on every call: the two reads are built once per handle and
 * prepared once per connection on PostgreSQL, rather than built and planned on every call.
 */
const tokenQueriesFor = oncePerHandle((db) => ({
  byGuid: tokenQuery(db, 'guid', 'entry_identity_token_by_guid'),
  byShortId: tokenQuery(db, 'shortId', 'entry_identity_token_by_short_id'),
}));

/**
 * A token that exists and has not been revoked, found by guid or short id, with its consumer's
 * whole row (its answers' hashes and its locks included). Never writes.
 */
export async function findIdentityTokenToVerify(
  db: Database,
  tokenParam: string,
): Promise<{ record: IdentityTokenRecord; consumerRow: typeof consumers.$inferSelect } | null> {
  const queries = tokenQueriesFor(db);
  let rows: Awaited<ReturnType<TokenQuery['execute']>>;
  if (isGuid(tokenParam)) {
    rows = await queries.byGuid.execute({ token: tokenParam.toLowerCase() });
  } else {
    const shortId = normaliseShortId(tokenParam);
    if (shortId === null) return null;
    rows = await queries.byShortId.execute({ token: shortId });
  }
  const row = rows[0];
  if (row === undefined) return null;
  const { consumer } = row;
  return {
    record: {
      token: row.token,
      consumer: { id: consumer.id, consumerId: consumer.consumerId, email: consumer.email },
      tenant: {
        id: row.tenant.id,
        subdomain: row.tenant.subdomain,
        mfaRequired: row.tenant.settings.mfaRequired,
      },
    },
    consumerRow: consumer,
  };
}

/** A token that exists and has not been revoked, found by guid or short id. Never writes. */
export async function findIdentityToken(
  db: Database,
  tokenParam: string,
): Promise<IdentityTokenRecord | null> {
  return (await findIdentityTokenToVerify(db, tokenParam))?.record ?? null;
}

/** `findIdentityToken` through the read cache: for the public reads only, never for a sign-in. */
export function findIdentityTokenCached(
  db: Database,
  clock: Clock,
  tokenParam: string,
): Promise<IdentityTokenRecord | null> {
  const shortId = isGuid(tokenParam) ? null : normaliseShortId(tokenParam);
  const key = isGuid(tokenParam)
    ? `guid:${tokenParam.toLowerCase()}`
    : shortId === null
      ? null
      : `short:${shortId}`;
  if (key === null) return Promise.resolve(null);
  return readCacheFor(db, clock).identityTokens.get(key, () => findIdentityToken(db, tokenParam));
}
