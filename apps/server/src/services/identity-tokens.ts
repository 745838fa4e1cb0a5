import type { ConsumerIdentityToken } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { findIdentityTokenCached, type IdentityTokenRecord } from '../stores/identity-tokens.ts';

/** A link's token for the public read, through the read cache; 404 LinkNotFound when there is none. */
export async function findLinkToRead(ctx: AppContext, tokenParam: string): Promise<IdentityTokenRecord> {
  const record = await findIdentityTokenCached(ctx.db, ctx.clock, tokenParam);
  if (record === null) throw refuse('linkNotFound');
  return record;
}

export function isExpired(token: IdentityTokenRecord['token'], now: Date): boolean {
  return token.expiresAt.getTime() <= now.getTime();
}

/**
 * When the link's verification opens again, where it or its consumer is locked at `now`. Anyone
 * holding the link learns as much by answering, so the page can say it before the person types.
 */
function verificationLockedUntil(record: IdentityTokenRecord, now: Date): Date | null {
  const ends = [record.token.lockedUntil, record.consumer.lockedUntil]
    .filter((end): end is Date => end !== null && end.getTime() > now.getTime())
    .map((end) => end.getTime());
  return ends.length === 0 ? null : new Date(Math.max(...ends));
}

/**
 * The wire form. Payment data goes only to the consumer's own signed-in session: debt
 * information never reaches an anonymous reader of a link (FDCPA).
 */
export function toWireIdentityToken(
  record: IdentityTokenRecord,
  includeData: boolean,
  now: Date,
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
    lockedUntil: verificationLockedUntil(record, now)?.toISOString() ?? null,
    language: record.consumer.language,
  };
}
