import { randomUUID } from 'node:crypto';
import type { Language, SignInType } from '@entry/domain';
import { and, count, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import { consumerSettingsOf, type consumers, identityTokens, type TenantSettings } from '../db/schema.ts';
import { dateOrNull, executePart, executeRows, type StatementPart, sqlPart } from '../db/sql.ts';
import { type ConsumerOnFile, consumersOnFile } from './consumers.ts';
import { generateShortId, isGuid, normaliseShortId } from './identity-token-ids.ts';
import { cachePerHandle } from './read-cache.ts';

/** An identity token with what the calls around it need from its consumer and tenant. */
export interface IdentityTokenRecord {
  token: typeof identityTokens.$inferSelect;
  /** `lockedUntil`: the consumer's own lock, counted across its links. */
  consumer: {
    id: number;
    consumerId: string;
    email: string | null;
    lockedUntil: Date | null;
    language: Language | null;
  };
  /** `defaultLanguage`: null where the operator has not set one. */
  tenant: {
    id: number;
    subdomain: string;
    mfaRequired: boolean;
    defaultLanguage: Language | null;
    debtCollector: boolean;
  };
}

/** Identity-token records by the normalised guid or short id they were read with. */
const recordCache = cachePerHandle<IdentityTokenRecord>();

const tokenCacheKeys = (token: { guid: string; shortId: string | null }): string[] =>
  token.shortId === null ? [`guid:${token.guid}`] : [`guid:${token.guid}`, `short:${token.shortId}`];

/** After a write to one identity token (its last use, its locks): its next read goes to the database. */
export function forgetIdentityToken(db: Database, token: { guid: string; shortId: string | null }): void {
  recordCache.made(db)?.delete(tokenCacheKeys(token));
}

interface TokenReadRow {
  token_guid: string;
  token_short_id: string | null;
  token_consumer_id: string;
  token_tenant_id: number;
  token_source: string;
  token_sign_in_type: SignInType;
  token_data: (typeof identityTokens.$inferSelect)['data'];
  token_created_at: Date | string;
  token_expires_at: Date | string;
  token_last_used_at: Date | string | null;
  token_revoked_at: Date | string | null;
  token_mailing_id: string | null;
  token_failed_count: number;
  token_locked_until: Date | string | null;
  token_lock_level: number;
  token_last_failure_at: Date | string | null;
  consumer_id: string;
  consumer_tenant_id: number;
  consumer_consumer_id: string;
  consumer_name: string;
  consumer_email: string | null;
  consumer_last4_ssn_hash: string | null;
  consumer_postal_code_hash: string | null;
  consumer_date_of_birth_hash: string | null;
  consumer_language: Language | null;
  consumer_failed_count: number;
  consumer_locked_until: Date | string | null;
  consumer_lock_level: number;
  consumer_last_failure_at: Date | string | null;
  consumer_created_at: Date | string;
  tenant_id: number;
  tenant_subdomain: string;
  tenant_settings: TenantSettings;
}

/** The lock columns of the token or of its consumer. */
const lockOf = (row: TokenReadRow, prefix: 'token' | 'consumer') => ({
  failedCount: row[`${prefix}_failed_count`],
  lockedUntil: dateOrNull(row[`${prefix}_locked_until`]),
  lockLevel: row[`${prefix}_lock_level`],
  lastFailureAt: dateOrNull(row[`${prefix}_last_failure_at`]),
});

/**
 * A direct sign-in and a link's lookup read their token on every call: one hand-written statement
 * per column, prepared once per connection under the name of its text, as the other hot paths.
 */
function tokenRead(token: { column: 'guid' | 'short_id'; value: string }): StatementPart {
  const tokenIs =
    token.column === 'guid'
      ? sqlPart`it.guid = ${token.value}::uuid`
      : sqlPart`it.short_id = ${token.value}::text`;
  return sqlPart`SELECT it.guid::text AS token_guid, it.short_id AS token_short_id,
      it.consumer_id::text AS token_consumer_id, it.tenant_id AS token_tenant_id, it.source AS token_source,
      it.sign_in_type AS token_sign_in_type, it.data AS token_data, it.created_at AS token_created_at,
      it.expires_at AS token_expires_at, it.last_used_at AS token_last_used_at,
      it.revoked_at AS token_revoked_at, it.mailing_id AS token_mailing_id,
      it.failed_count AS token_failed_count, it.locked_until AS token_locked_until,
      it.lock_level AS token_lock_level, it.last_failure_at AS token_last_failure_at,
      c.id::text AS consumer_id, c.tenant_id AS consumer_tenant_id, c.consumer_id AS consumer_consumer_id,
      c.name AS consumer_name, c.email AS consumer_email, c.last4_ssn_hash AS consumer_last4_ssn_hash,
      c.postal_code_hash AS consumer_postal_code_hash, c.date_of_birth_hash AS consumer_date_of_birth_hash,
      c.language AS consumer_language, c.failed_count AS consumer_failed_count,
      c.locked_until AS consumer_locked_until, c.lock_level AS consumer_lock_level,
      c.last_failure_at AS consumer_last_failure_at,
      c.created_at AS consumer_created_at,
      tn.id AS tenant_id, tn.subdomain AS tenant_subdomain, tn.settings AS tenant_settings
    FROM identity_tokens it
    JOIN consumers c ON c.id = it.consumer_id
    JOIN tenants tn ON tn.id = it.tenant_id
    WHERE ${tokenIs} AND it.revoked_at IS NULL
    LIMIT 1`;
}

/**
 * A token that exists and has not been revoked, found by guid or short id, with its consumer's
 * whole row (its answers' hashes and its locks included). Never writes.
 */
export async function findIdentityTokenToVerify(
  db: Database,
  tokenParam: string,
): Promise<{ record: IdentityTokenRecord; consumerRow: typeof consumers.$inferSelect } | null> {
  let read: StatementPart;
  if (isGuid(tokenParam)) {
    read = tokenRead({ column: 'guid', value: tokenParam.toLowerCase() });
  } else {
    const shortId = normaliseShortId(tokenParam);
    if (shortId === null) return null;
    read = tokenRead({ column: 'short_id', value: shortId });
  }
  const [row] = await executePart<TokenReadRow>(db, read);
  if (row === undefined) return null;
  const consumer: typeof consumers.$inferSelect = {
    id: Number(row.consumer_id),
    tenantId: row.consumer_tenant_id,
    consumerId: row.consumer_consumer_id,
    name: row.consumer_name,
    email: row.consumer_email,
    last4SsnHash: row.consumer_last4_ssn_hash,
    postalCodeHash: row.consumer_postal_code_hash,
    dateOfBirthHash: row.consumer_date_of_birth_hash,
    language: row.consumer_language,
    ...lockOf(row, 'consumer'),
    createdAt: new Date(row.consumer_created_at),
  };
  return {
    record: {
      token: {
        guid: row.token_guid,
        shortId: row.token_short_id,
        consumerId: Number(row.token_consumer_id),
        tenantId: row.token_tenant_id,
        source: row.token_source,
        signInType: row.token_sign_in_type,
        data: row.token_data,
        createdAt: new Date(row.token_created_at),
        expiresAt: new Date(row.token_expires_at),
        lastUsedAt: dateOrNull(row.token_last_used_at),
        revokedAt: dateOrNull(row.token_revoked_at),
        mailingId: row.token_mailing_id,
        ...lockOf(row, 'token'),
      },
      consumer: {
        id: consumer.id,
        consumerId: consumer.consumerId,
        email: consumer.email,
        lockedUntil: consumer.lockedUntil,
        language: consumer.language,
      },
      tenant: {
        id: row.tenant_id,
        subdomain: row.tenant_subdomain,
        mfaRequired: row.tenant_settings.mfaRequired,
        ...consumerSettingsOf(row.tenant_settings),
      },
    },
    consumerRow: consumer,
  };
}

/** A token that exists and has not been revoked, found by guid or short id. Never writes. */
async function findIdentityToken(db: Database, tokenParam: string): Promise<IdentityTokenRecord | null> {
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
  return recordCache.of(db, clock).get(key, () => findIdentityToken(db, tokenParam));
}

/** A token of a mailing about to be issued; `guid` and `shortId` end up holding what was stored. */
export interface NewMailingToken {
  guid: string;
  shortId: string | null;
  consumerId: number;
  signInType: SignInType;
  data: unknown;
  expiresAt: Date;
}

/** What issuing a mailing reads and writes, inside its one transaction. */
export interface MailingIssue {
  consumersOnFile(consumerIds: readonly string[]): Promise<Map<string, ConsumerOnFile>>;
  insertTokens(tokens: readonly NewMailingToken[]): Promise<void>;
}

/**
 * Runs `issue` in one transaction: anything it throws writes nothing. Answers `otherTenant`,
 * without running it, when tokens of another tenant carry the mailing's name already.
 */
export async function issueMailing(
  db: Database,
  common: { tenantId: number; mailing: string; now: Date },
  issue: (writes: MailingIssue) => Promise<void>,
): Promise<'issued' | 'otherTenant'> {
  return db.transaction(async (tx) => {
    const [foreign] = await tx
      .select({ count: count() })
      .from(identityTokens)
      .where(and(eq(identityTokens.mailingId, common.mailing), ne(identityTokens.tenantId, common.tenantId)));
    if ((foreign?.count ?? 0) > 0) return 'otherTenant';
    await issue({
      consumersOnFile: (consumerIds) => consumersOnFile(tx, common.tenantId, consumerIds),
      insertTokens: (tokens) => insertMailingTokens(tx, tokens, common),
    });
    return 'issued';
  });
}

/**
 * Inserts a mailing's tokens, a statement a try, the batch as one JSON parameter that PostgreSQL
 * unpacks (json_to_recordset) rather than thousands of bind parameters. A short id that happens to
 * be taken already (50 random bits, so almost never) is drawn again, with a new guid, for just that token.
 */
async function insertMailingTokens(
  db: Database,
  tokens: readonly NewMailingToken[],
  common: { tenantId: number; mailing: string; now: Date },
): Promise<void> {
  let pending = tokens;
  while (pending.length > 0) {
    const batch = pending.map((token) => ({
      guid: token.guid,
      short_id: token.shortId,
      consumer_id: token.consumerId,
      sign_in_type: token.signInType,
      data: token.data,
      expires_at: token.expiresAt.toISOString(),
    }));
    const inserted = await executeRows<{ guid: string }>(
      db,
      sql`
        INSERT INTO identity_tokens
          (guid, short_id, consumer_id, tenant_id, source, sign_in_type, data, created_at, expires_at, mailing_id)
        SELECT r.guid, r.short_id, r.consumer_id, ${common.tenantId}, 'mailing', r.sign_in_type, r.data,
          ${common.now.toISOString()}::timestamptz, r.expires_at, ${common.mailing}
        FROM json_to_recordset(${JSON.stringify(batch)}::json) AS r(guid uuid, short_id text, consumer_id bigint,
          sign_in_type text, data jsonb, expires_at timestamptz)
        ON CONFLICT DO NOTHING
        RETURNING guid`,
    );
    const done = new Set(inserted.map((row) => row.guid));
    pending = pending.filter((token) => !done.has(token.guid));
    for (const token of pending) {
      token.guid = randomUUID();
      if (token.shortId !== null) token.shortId = generateShortId();
    }
  }
}

/**
 * Revokes every token of a mailing that is not revoked yet; answers how many and the mailing's
 * tenant, or undefined when no token has that mailing. Servers sharing this database handle stop
 * serving the tokens at once, other processes within the read cache's few seconds.
 */
export async function revokeMailingTokens(
  db: Database,
  mailing: string,
  now: Date,
): Promise<{ revoked: number; tenantId: number } | undefined> {
  const [existing] = await db
    .select({ tenantId: identityTokens.tenantId })
    .from(identityTokens)
    .where(eq(identityTokens.mailingId, mailing))
    .limit(1);
  if (existing === undefined) return undefined;
  const revoked = await db
    .update(identityTokens)
    .set({ revokedAt: now })
    .where(and(eq(identityTokens.mailingId, mailing), isNull(identityTokens.revokedAt)))
    .returning({ guid: identityTokens.guid });
  // Of the revoked tokens only the guids are known here, not the short ids they are also cached by.
  recordCache.made(db)?.clear();
  return { revoked: revoked.length, tenantId: existing.tenantId };
}

/** A mailing's links as counted for its list. */
export interface MailingCounts {
  mailing: string;
  links: number;
  liveLinks: number;
  revokedLinks: number;
  issuedAt: Date;
  expiresAt: Date;
}

/** The mailings of a tenant, newest first, with their links counted. */
export async function mailingsOfTenant(db: Database, tenantId: number, now: Date): Promise<MailingCounts[]> {
  const rows = await executeRows<{
    mailing: string;
    links: number;
    live_links: number;
    revoked_links: number;
    // The drivers differ: a Date or the timestamp's text.
    issued_at: Date | string;
    expires_at: Date | string;
  }>(
    db,
    sql`
      SELECT mailing_id AS mailing,
        count(*)::int AS links,
        (count(*) FILTER (WHERE revoked_at IS NULL AND expires_at > ${now.toISOString()}::timestamptz))::int AS live_links,
        (count(*) FILTER (WHERE revoked_at IS NOT NULL))::int AS revoked_links,
        min(created_at) AS issued_at,
        max(expires_at) AS expires_at
      FROM identity_tokens
      WHERE tenant_id = ${tenantId} AND mailing_id IS NOT NULL
      GROUP BY mailing_id
      ORDER BY min(created_at) DESC, mailing_id`,
  );
  return rows.map((row) => ({
    mailing: row.mailing,
    links: row.links,
    liveLinks: row.live_links,
    revokedLinks: row.revoked_links,
    issuedAt: new Date(row.issued_at),
    expiresAt: new Date(row.expires_at),
  }));
}
