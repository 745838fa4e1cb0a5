import type { ConsumerIdentityToken } from '@entry/domain';
import { and, eq, isNull, type SQL } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { consumers, identityTokens, tenants } from '../db/schema.ts';
import { isGuid, normaliseShortId } from './identity-tokens-short-id.ts';

/** An identity token with what the calls around it need from its consumer and tenant. */
export interface IdentityTokenRecord {
  token: typeof identityTokens.$inferSelect;
  consumer: { id: number; consumerId: string; email: string | null };
  tenant: { id: number; subdomain: string; mfaRequired: boolean };
}

/** The condition that finds a token by the guid or short id a link or a person gave, or null. */
export function tokenCondition(tokenParam: string): SQL | null {
  if (isGuid(tokenParam)) return eq(identityTokens.guid, tokenParam.toLowerCase());
  const shortId = normaliseShortId(tokenParam);
  return shortId === null ? null : eq(identityTokens.shortId, shortId);
}

/** A token that exists and has not been revoked, found by guid or short id. Never writes. */
export async function findIdentityToken(
  db: Database,
  tokenParam: string,
): Promise<IdentityTokenRecord | null> {
  const condition = tokenCondition(tokenParam);
  if (condition === null) return null;
  const rows = await db
    .select({
      token: identityTokens,
      consumer: { id: consumers.id, consumerId: consumers.consumerId, email: consumers.email },
      tenant: { id: tenants.id, subdomain: tenants.subdomain, settings: tenants.settings },
    })
    .from(identityTokens)
    .innerJoin(consumers, eq(consumers.id, identityTokens.consumerId))
    .innerJoin(tenants, eq(tenants.id, identityTokens.tenantId))
    .where(and(condition, isNull(identityTokens.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (row === undefined) return null;
  return {
    token: row.token,
    consumer: row.consumer,
    tenant: {
      id: row.tenant.id,
      subdomain: row.tenant.subdomain,
      mfaRequired: row.tenant.settings.mfaRequired,
    },
  };
}

export function isExpired(token: IdentityTokenRecord['token'], now: Date): boolean {
  return token.expiresAt.getTime() <= now.getTime();
}

/**
 * The wire form. Payment data goes only to the consumer's own signed-in session: debt
 * information never reaches an anonymous reader of a link (FDCPA).
 */
export function toWireIdentityToken(
  record: IdentityTokenRecord,
  includeData: boolean,
): ConsumerIdentityToken {
  const { token } = record;
  return {
    guid: token.guid,
    shortId: token.shortId,
    consumerId: record.consumer.consumerId,
    customerId: record.tenant.id,
    source: token.source,
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    signInType: token.signInType,
    data: includeData ? (token.data ?? null) : null,
  };
}
