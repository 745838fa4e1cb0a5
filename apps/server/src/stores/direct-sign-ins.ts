import type { Language, SignInType } from '@entry/domain';
import { type Database, oncePerHandle } from '../db/index.ts';
import { fixedText, rowPerCallBatchedByTurn, type StatementPart, sqlPart } from '../db/sql.ts';
import { forgetIdentityToken } from './identity-tokens.ts';
import { refreshTokenInsert } from './sessions.ts';

/** What a direct sign-in read of the token it names: enough to audit and explain a refusal. */
export interface DirectSignInToken {
  guid: string;
  shortId: string | null;
  consumerId: number;
  tenantId: number;
}

export const directSignInEvent = 'consumer.sign-in.identity-token';

type TokenColumn = 'guid' | 'short_id';

export interface DirectSignInInput {
  /** The token's guid (lower case) or its normalised short id. */
  token: { column: TokenColumn; value: string };
  customerId: number;
  /** Lower case. */
  subdomain: string;
  session: { id: string; createdAt: Date; roleId: number };
  refreshToken: { hash: string; expiresAt: Date };
  ip: string;
}

/**
 * The whole sign-in with a Direct link in one statement: it reads the token (unrevoked, of the
 * tenant named by both its id and subdomain) and, when the token is Direct and unexpired, writes
 * the session, its first refresh token, the token's last use and the success audit row, all in one
 * round trip and one commit; the names the access token carries come back with it. These are
 * one caller's clauses, their names ending in `index`, so that the sign-ins of one turn share a
 * statement (decision record 018).
 */
function directSignInClauses(input: DirectSignInInput, index: number): StatementPart {
  const { token, session } = input;
  const found = fixedText(`t${index}`);
  const usable = fixedText(`usable${index}`);
  const now = session.createdAt.toISOString();
  const tokenIs =
    token.column === 'guid'
      ? sqlPart`it.guid = ${token.value}::uuid`
      : sqlPart`it.short_id = ${token.value}::text`;
  const refresh = refreshTokenInsert(
    { ...input.refreshToken, createdAt: session.createdAt },
    sqlPart`${session.id}::uuid`,
    sqlPart`FROM ${usable}`,
  );
  return sqlPart`${found} AS (
    SELECT it.guid, it.short_id, it.consumer_id, it.tenant_id, it.sign_in_type,
      it.expires_at <= ${now}::timestamptz AS expired, c.name AS consumer_name, c.language AS consumer_language
    FROM identity_tokens it
    JOIN tenants tn ON tn.id = it.tenant_id
    JOIN consumers c ON c.id = it.consumer_id
    WHERE ${tokenIs} AND it.revoked_at IS NULL
      AND tn.id = ${input.customerId}::integer AND tn.subdomain = ${input.subdomain}::text
  ),
  ${usable} AS (SELECT * FROM ${found} WHERE sign_in_type = 'Direct' AND NOT expired),
  ${fixedText(`session${index}`)} AS (
    INSERT INTO sessions (id, scope, tenant_id, consumer_id, identity_token_guid, access_type,
      has_restricted_access, role_id, created_at)
    SELECT ${session.id}::uuid, 'consumer', tenant_id, consumer_id, guid, 'Consumer', false,
      ${session.roleId}::integer, ${now}::timestamptz
    FROM ${usable}
  ),
  ${fixedText(`refresh${index}`)} AS (${refresh}),
  ${fixedText(`used${index}`)} AS (
    UPDATE identity_tokens SET last_used_at = ${now}::timestamptz WHERE guid IN (SELECT guid FROM ${usable})
  ),
  ${fixedText(`audited${index}`)} AS (
    INSERT INTO audit_log (at, event, outcome, actor, tenant_id, ip, detail)
    SELECT ${now}::timestamptz, ${directSignInEvent}::text, 'success', 'consumer:' || consumer_id, tenant_id,
      ${input.ip}::text, jsonb_build_object('identityToken', guid, 'sessionId', ${session.id}::text)
    FROM ${usable}
  )`;
}

const callerRow = (index: number) =>
  `guid::text AS guid, short_id, consumer_id::text AS consumer_id, tenant_id, sign_in_type, expired,
    consumer_name, consumer_language, EXISTS (SELECT 1 FROM usable${index}) AS signed_in
  FROM t${index}`;

interface DirectSignInRow {
  guid: string;
  short_id: string | null;
  consumer_id: string;
  tenant_id: number;
  sign_in_type: SignInType;
  expired: boolean;
  consumer_name: string | null;
  consumer_language: Language | null;
  signed_in: boolean;
}

/**
 * Each database's runner of direct sign-ins: those of one turn share a statement, four at most
 * (with the two token columns, eight statement texts), never two with one link, since each sets
 * the token's last use and one statement cannot change a row twice.
 */
const directSignInsOf = oncePerHandle((db) =>
  rowPerCallBatchedByTurn<DirectSignInInput, DirectSignInRow>(db, {
    clausesOf: directSignInClauses,
    rowOf: callerRow,
    shapeOf: (input) => input.token.column,
    rowsOf: (input) => [`${input.token.column}:${input.token.value}`],
    perStatement: 4,
  }),
);

/** What the statement found: the token, and whether it signed in (else why not). */
export interface DirectSignInOutcome {
  token: DirectSignInToken;
  signInType: SignInType;
  expired: boolean;
  consumerName: string | null;
  /** The consumer's saved language, as the sign-in read it. */
  consumerLanguage: Language | null;
  signedIn: boolean;
}

/** Undefined when no unrevoked token by that guid or short id belongs to the tenant named. */
export async function runDirectSignIn(
  db: Database,
  input: DirectSignInInput,
): Promise<DirectSignInOutcome | undefined> {
  const row = await directSignInsOf(db)(input);
  if (row === undefined) return undefined;
  const token: DirectSignInToken = {
    guid: row.guid,
    shortId: row.short_id,
    consumerId: Number(row.consumer_id),
    tenantId: row.tenant_id,
  };
  // The sign-in wrote the token's last use: its next read goes to the database.
  if (row.signed_in) forgetIdentityToken(db, token);
  return {
    token,
    signInType: row.sign_in_type,
    expired: row.expired,
    consumerName: row.consumer_name,
    consumerLanguage: row.consumer_language,
    signedIn: row.signed_in,
  };
}
