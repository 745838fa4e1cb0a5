import { createHash, type KeyObject, randomFillSync, randomUUID, sign } from 'node:crypto';
import type { AccessType, AuthTokenResult } from '@entry/domain';
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { type JWTPayload, errors as joseErrors, jwtVerify } from 'jose';
import '@fastify/cookie';
import type { Config } from '../config.ts';
import { type Database, executeStatement, statement } from '../db/index.ts';
import { refreshTokens, type Scope, sessions } from '../db/schema.ts';
import { executePart, noRead, rowPerCallInTurns, type StatementPart, withWrites } from '../db/sql.ts';
import { notAuthorized, notPermitted } from '../errors.ts';
import type { AuditLog } from './audit.ts';
import type { SigningKeys } from './keys.ts';
import { endingCause, endingInstants, recordEndings } from './session-endings.ts';

/** A rotated refresh token presented again this soon gets a sibling pair (tabs refreshing together). */
export const refreshGraceMs = 10_000;
export const refreshCookieName = 'entry-refresh';

export interface NewSession {
  scope: Scope;
  tenantId: number | null;
  /** The admin or customer user signing in. */
  staffUserId?: number | null;
  /** The consumer signing in, and the identity token they came with, if any. */
  consumerId?: number | null;
  identityTokenGuid?: string | null;
  accessType: AccessType;
  hasRestrictedAccess: boolean;
  /** Every full token has one; a restricted (MFA pending) token has none. */
  roleId: number | null;
  /** The admin who launched this customer session (accessType `Launched`). */
  launchedByAdminId?: number | null;
  /** The admin session it was launched from: this session lives only while that one does. */
  launchedBySessionId?: string | null;
}

/** Who a verified, unrevoked access token belongs to; set on the request by `requireSession`. */
export interface SessionPrincipal {
  sessionId: string;
  scope: Scope;
  tenantId: number | null;
  staffUserId: number | null;
  consumerId: number | null;
  identityTokenGuid: string | null;
  accessType: AccessType;
  hasRestrictedAccess: boolean;
  roleId: number | null;
  launchedByAdminId: number | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal?: SessionPrincipal;
  }
}

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

export interface RequireSessionOptions {
  /** Lets a restricted (MFA pending) token through: only the MFA calls set this. */
  allowRestricted?: boolean;
}

/**
 * Writes that belong to a new session (its audit row, the identity token's last use, the first MFA
 * code), given the session's id: they run in the session's own statement, so a sign-in commits
 * once, in one round trip, and none of them is written without the others.
 */
export type WritesWithSession = (sessionId: string) => StatementPart[];

/** A new session's id and first refresh token, chosen before the statement that writes them. */
export interface NewSessionKeys {
  id: string;
  refreshToken: string;
  refreshTokenHash: string;
  createdAt: Date;
  refreshTokenExpiresAt: Date;
}

/** The names a session's access token carries, read with the statement that wrote the session. */
export interface SessionNames {
  consumerName: string | null;
  staffName: string | null;
  launchedByName: string | null;
}

export interface SessionService {
  /**
   * Creates a server-side session and its first token pair (and `alongside`, in the same statement).
   * The names its access token carries are read with the writes, unless the caller has read them
   * and passes them as `known.names`.
   */
  createSession(
    input: NewSession,
    alongside?: WritesWithSession,
    known?: { names: SessionNames },
  ): Promise<AuthTokenResult>;
  /**
   * The keys of a session that a caller's own statement writes (its `sessions` and
   * `refresh_tokens` rows with the caller's other writes, in one round trip); `firstPair` then
   * signs its tokens. `createSession` does both for the common case.
   */
  newSessionKeys(): NewSessionKeys;
  /** The inserts of the session of `keys` and its first refresh token, for a caller's own statement. */
  sessionInserts(keys: NewSessionKeys, input: NewSession): StatementPart[];
  firstPair(keys: NewSessionKeys, input: NewSession, names: SessionNames): Promise<AuthTokenResult>;
  /**
   * Changes a session's access (e.g. MFA completed: restricted -> full) and issues a new pair;
   * the session's earlier refresh tokens stop working.
   */
  upgradeSession(
    sessionId: string,
    change: { accessType: AccessType; hasRestrictedAccess: boolean; roleId: number | null },
  ): Promise<AuthTokenResult>;
  /** Rotates a refresh token (DESIGN.md section 5: grace sibling pair, reuse revokes the session). */
  refresh(scope: Scope, refreshToken: string, ip: string): Promise<AuthTokenResult>;
  revokeSession(sessionId: string, reason: string): Promise<void>;
  /** The session a sign-out call names: its bearer token (even expired) or its refresh token. */
  identifySession(request: FastifyRequest, scope: Scope): Promise<string | undefined>;
  /** Verifies the bearer token (signature, expiry, scope) and that its session is not revoked. */
  authenticate(
    request: FastifyRequest,
    scope: Scope,
    options?: RequireSessionOptions,
  ): Promise<SessionPrincipal>;
  /** preHandler form of `authenticate`; the principal is then `request.principal`. */
  requireSession(scope: Scope, options?: RequireSessionOptions): preHandlerAsyncHookHandler;
  setRefreshCookie(reply: FastifyReply, scope: Scope, result: AuthTokenResult): void;
  clearRefreshCookie(reply: FastifyReply, scope: Scope): void;
  /** The refresh token a call carries: the scope's cookie, else `refreshToken` in a JSON body. */
  refreshTokenOf(request: FastifyRequest): string | undefined;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const tokenBytes = 32;
const randomPool = Buffer.alloc(tokenBytes * 128);
let randomPoolOffset = randomPool.length;

/**
 * 32 random bytes, base64url. The bytes come from a pool filled 4 KiB at a time, as Node's
 * `randomUUID` does: `randomBytes` for each token took 6 µs, and up to 23 µs beside a sign-in's
 * other work, against a fraction of one from the pool. A token's bytes are zeroed once handed out.
 */
export function randomToken(): string {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  const end = randomPoolOffset + tokenBytes;
  const token = randomPool.toString('base64url', randomPoolOffset, end);
  randomPool.fill(0, randomPoolOffset, end);
  randomPoolOffset = end;
  return token;
}

export function refreshCookiePath(scope: Scope): string {
  return `/api/auth/v1/${scope}`;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** The principal set by `requireSession`; a route without that preHandler has none. */
export function principalOf(request: FastifyRequest): SessionPrincipal {
  if (request.principal === undefined) throw notAuthorized();
  return request.principal;
}

type SessionRow = typeof sessions.$inferSelect;

function toPrincipal(row: SessionColumnsRow): SessionPrincipal {
  return {
    sessionId: row.id,
    scope: row.scope,
    tenantId: row.tenant_id,
    staffUserId: idOf(row.staff_user_id),
    consumerId: idOf(row.consumer_id),
    identityTokenGuid: row.identity_token_guid,
    accessType: row.access_type,
    hasRestrictedAccess: row.has_restricted_access,
    roleId: row.role_id,
    launchedByAdminId: idOf(row.launched_by_admin_id),
  };
}

/** A session as a token is signed for it: its row and the names the token carries. */
interface SessionView extends Omit<SessionPrincipal, 'sessionId'>, SessionNames {
  id: string;
}

/** `sessionViewColumns` as a raw statement returns them (bigints as text: both drivers agree on text). */
interface SessionViewRow {
  id: string;
  scope: Scope;
  tenant_id: number | null;
  staff_user_id: string | null;
  consumer_id: string | null;
  identity_token_guid: string | null;
  access_type: AccessType;
  has_restricted_access: boolean;
  role_id: number | null;
  launched_by_admin_id: string | null;
  consumer_name: string | null;
  staff_name: string | null;
  launched_by_name: string | null;
}

/** A session's own columns in `SessionViewRow`. */
type SessionColumnsRow = Omit<SessionViewRow, keyof SessionNamesRow>;
type SessionNamesRow = Pick<SessionViewRow, 'consumer_name' | 'staff_name' | 'launched_by_name'>;

/** The columns of a session `s`, as `SessionColumnsRow`. */
const sessionColumnsText =
  's.id::text AS id, s.scope, s.tenant_id, s.staff_user_id::text AS staff_user_id, ' +
  's.consumer_id::text AS consumer_id, s.identity_token_guid::text AS identity_token_guid, ' +
  's.access_type, s.has_restricted_access, s.role_id, ' +
  's.launched_by_admin_id::text AS launched_by_admin_id';
/** The columns of a session `s` and the names joined by `sessionNameJoins`, read with the write that needs them. */
const sessionViewColumns = `${sessionColumnsText}, c.name AS consumer_name, u.display_name AS staff_name, l.display_name AS launched_by_name`;
const sessionNameJoins =
  'LEFT JOIN consumers c ON c.id = s.consumer_id ' +
  'LEFT JOIN staff_users u ON u.id = s.staff_user_id ' +
  'LEFT JOIN staff_users l ON l.id = s.launched_by_admin_id';

/**
 * The whole rotation of a refresh token, as one statement (one round trip, one commit), its text
 * fixed so PostgreSQL plans it once per connection: planning it took several times as long as
 * running it. These are one caller's clauses, their names ending in `index`, so that the
 * rotations of one turn share a statement (decision record 018). $1 the start of the grace
 * period, $2 now, $3 the scope, $4 the token's hash, $5 the successor's hash, $6 the successor's
 * expiry, $7 and $8 the starts before which a session and a pending session have ended. A session
 * waiting for its second factor is never renewed.
 *
 * The token's state comes from the statement's snapshot; the rotating UPDATE re-checks
 * `rotated_at IS NULL` on the row as committed, so of racing callers exactly one wins the rotation
 * (and names its successor), and a loser (which saw the token unrotated) was rotated within the
 * grace period by definition: it gets a sibling, as does a caller within 10 s of the rotation.
 * Racing callers never share a statement, which could rotate the row only once for both.
 */
const refreshClauses = (index: number) =>
  `found${index} AS (
    SELECT t.session_id,
      t.rotated_at IS NULL AS unrotated,
      t.rotated_at >= $1::timestamptz AS in_grace,
      t.expires_at > $2::timestamptz AND s.revoked_at IS NULL AND s.scope = $3
        AND NOT s.has_restricted_access AND (${endingCause('$2', '$7', '$8')}) IS NULL AS usable
    FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
    WHERE t.hash = $4::text
  ),
  rotated${index} AS (
    UPDATE refresh_tokens SET rotated_at = $2::timestamptz, replaced_by = $5::text
    WHERE hash = $4::text AND rotated_at IS NULL AND (SELECT usable FROM found${index})
  ),
  issued${index} AS (
    INSERT INTO refresh_tokens (hash, session_id, created_at, expires_at)
    SELECT $5::text, session_id, $2::timestamptz, $6::timestamptz
    FROM found${index}
    WHERE usable AND (unrotated OR in_grace)
    RETURNING hash
  )`;

const refreshRow = (index: number) =>
  `found${index}.usable, EXISTS (SELECT 1 FROM issued${index}) AS issued, ${sessionViewColumns}
  FROM found${index} JOIN sessions s ON s.id = found${index}.session_id ${sessionNameJoins}`;

/**
 * A session's change of access (MFA completed), the end of its earlier refresh tokens and the new
 * one, as one statement with a fixed text: $1 the access type, $2 restricted or not, $3 the role,
 * $4 the session, $5 the new refresh token's hash, $6 now, $7 its expiry.
 */
const upgradeStatement = statement(
  `WITH s AS (
    UPDATE sessions SET access_type = $1::text, has_restricted_access = $2::boolean, role_id = $3::integer
    WHERE id = $4::uuid AND revoked_at IS NULL
    RETURNING *
  ),
  earlier AS (DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM s)),
  issued AS (
    INSERT INTO refresh_tokens (hash, session_id, created_at, expires_at)
    SELECT $5::text, id, $6::timestamptz, $7::timestamptz FROM s
  )
  SELECT ${sessionViewColumns} FROM s ${sessionNameJoins}`,
);

/**
 * A session an authenticated call may use: not revoked, and its grounds holding. $1 the session,
 * $2 now, $3 and $4 the starts before which a session and a pending session have ended.
 */
const liveSessionStatement = statement(
  `SELECT ${sessionColumnsText} FROM sessions s
  WHERE s.id = $1::uuid AND s.revoked_at IS NULL AND (${endingCause('$2', '$3', '$4')}) IS NULL`,
);

/** A new session's row and its first refresh token's, for the statement that writes them. */
const sessionInsertText =
  'INSERT INTO sessions (id, scope, tenant_id, staff_user_id, consumer_id, identity_token_guid, access_type, ' +
  'has_restricted_access, role_id, launched_by_admin_id, created_at, launched_by_session_id) VALUES ($1::uuid, ' +
  '$2::text, $3::integer, $4::bigint, $5::bigint, $6::uuid, $7::text, $8::boolean, $9::integer, $10::bigint, ' +
  '$11::timestamptz, $12::uuid)';
const refreshTokenInsertText =
  'INSERT INTO refresh_tokens (hash, session_id, created_at, expires_at) ' +
  'VALUES ($1::text, $2::uuid, $3::timestamptz, $4::timestamptz)';
/** The names a new session's access token carries: $1 its consumer, $2 its staff user, $3 the launching admin. */
const namesText =
  'SELECT (SELECT name FROM consumers WHERE id = $1::bigint) AS consumer_name, ' +
  '(SELECT display_name FROM staff_users WHERE id = $2::bigint) AS staff_name, ' +
  '(SELECT display_name FROM staff_users WHERE id = $3::bigint) AS launched_by_name';

const idOf = (value: string | null): number | null => (value === null ? null : Number(value));

function toView(row: SessionViewRow): SessionView {
  const { sessionId, ...principal } = toPrincipal(row);
  return {
    id: sessionId,
    ...principal,
    consumerName: row.consumer_name,
    staffName: row.staff_name,
    launchedByName: row.launched_by_name,
  };
}

/** A new session's row as `NewSession` describes it, its optional references null. */
function sessionColumns(id: string, input: NewSession): Omit<SessionView, keyof SessionNames> {
  return {
    id,
    scope: input.scope,
    tenantId: input.tenantId,
    staffUserId: input.staffUserId ?? null,
    consumerId: input.consumerId ?? null,
    identityTokenGuid: input.identityTokenGuid ?? null,
    accessType: input.accessType,
    hasRestrictedAccess: input.hasRestrictedAccess,
    roleId: input.roleId,
    launchedByAdminId: input.launchedByAdminId ?? null,
  };
}

const base64urlJson = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWS (RFC 7515) signed with an Ed25519 key, synchronously: jose turns the key into a
 * WebCrypto key and signs on the thread pool on every call, about a tenth of a sign-in's server
 * time; node:crypto signs the same bytes in a few microseconds. Tokens are verified with jose.
 */
function signCompactJwt(header: { alg: 'EdDSA'; kid: string; typ: 'JWT' }, payload: object, key: KeyObject) {
  const signingInput = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  return `${signingInput}.${sign(null, Buffer.from(signingInput), key).toString('base64url')}`;
}

function subjectOf(row: Pick<SessionRow, 'scope' | 'staffUserId' | 'consumerId'>): string {
  return `${row.scope}:${row.staffUserId ?? row.consumerId ?? 'anonymous'}`;
}

/** A consumer's name only once the session has full access: an MFA-pending token names no one. */
function nameOf(view: SessionView): string | undefined {
  if (view.consumerId === null) return view.staffName ?? undefined;
  if (view.hasRestrictedAccess) return undefined;
  return view.consumerName ?? undefined;
}

/** One row of the refresh statement: the token's session, whether it could be used, and what it did. */
interface RefreshRow extends SessionViewRow {
  usable: boolean;
  issued: boolean;
}

export function createSessionService(deps: {
  db: Database;
  config: Pick<
    Config,
    'accessTokenMinutes' | 'refreshTokenMinutes' | 'sessionMaxMinutes' | 'publicScheme' | 'clock'
  >;
  keys: SigningKeys;
  audit: AuditLog;
}): SessionService {
  const { db, config, keys, audit } = deps;
  const clock = config.clock;

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

  /** The pair for a session whose refresh token `refreshToken` the statement that read `view` stored. */
  async function pairFor(view: SessionView, refreshToken: string): Promise<AuthTokenResult> {
    return {
      accessToken: await signAccessToken(view),
      accessTokenExpiresIn: config.accessTokenMinutes,
      refreshToken,
      refreshTokenExpiresIn: config.refreshTokenMinutes,
      sessionGuid: view.id,
      accessType: view.accessType,
      hasRestrictedAccess: view.hasRestrictedAccess,
    };
  }

  const refreshExpiry = (now: Date) => new Date(now.getTime() + config.refreshTokenMinutes * 60_000);

  /** Ends the session, and with it the sessions it launched (recorded with their cause). */
  async function revokeSession(sessionId: string, reason: string): Promise<void> {
    await db
      .update(sessions)
      .set({ revokedAt: clock.now(), revokedReason: reason })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
    await recordEndings(endingDeps, { sessionIds: [sessionId] });
  }

  async function verifyAccessToken(token: string, allowExpired: boolean): Promise<AccessClaims | undefined> {
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
  }

  const endingDeps = { db, clock, audit, sessionMaxMinutes: config.sessionMaxMinutes };

  // Read on every authenticated call, as a named statement prepared once per connection.
  async function liveSession(sessionId: string): Promise<SessionColumnsRow | undefined> {
    const { now, startedAfter, pendingStartedAfter } = endingInstants(clock.now(), config.sessionMaxMinutes);
    const [row] = await executeStatement<SessionColumnsRow>(db, liveSessionStatement, [
      sessionId,
      now.toISOString(),
      startedAfter.toISOString(),
      pendingStartedAfter.toISOString(),
    ]);
    return row;
  }

  /** Rotations of one turn share a statement: four at most, four statement texts. */
  const rotate = rowPerCallInTurns<{ hash: string; values: unknown[] }, RefreshRow>(db, {
    clausesOf: (call, index) => ({ text: refreshClauses(index), values: call.values }),
    rowOf: refreshRow,
    shapeOf: () => '',
    rowsOf: (call) => [call.hash],
    perStatement: 4,
  });

  const service: SessionService = {
    async createSession(input, alongside, known) {
      const keys = service.newSessionKeys();
      const writes = [...service.sessionInserts(keys, input), ...(alongside?.(keys.id) ?? [])];
      if (known !== undefined) {
        await executePart(db, withWrites(writes, noRead));
        return service.firstPair(keys, input, known.names);
      }
      // One statement: every write commits together, and the names the token carries are read
      // in the same round trip. The main query cannot see the new session row (one snapshot), so
      // the names are looked up by the ids just written. Named after its text: one prepared
      // statement per set of `alongside` writes.
      const [read] = await executePart<SessionNamesRow>(
        db,
        withWrites(writes, {
          text: namesText,
          values: [input.consumerId ?? null, input.staffUserId ?? null, input.launchedByAdminId ?? null],
        }),
      );
      return service.firstPair(keys, input, {
        consumerName: read?.consumer_name ?? null,
        staffName: read?.staff_name ?? null,
        launchedByName: read?.launched_by_name ?? null,
      });
    },

    newSessionKeys() {
      const refreshToken = randomToken();
      const createdAt = clock.now();
      return {
        id: randomUUID(),
        refreshToken,
        refreshTokenHash: hashToken(refreshToken),
        createdAt,
        refreshTokenExpiresAt: refreshExpiry(createdAt),
      };
    },

    sessionInserts(keys, input) {
      const row = sessionColumns(keys.id, input);
      const createdAt = keys.createdAt.toISOString();
      return [
        {
          text: sessionInsertText,
          values: [
            row.id,
            row.scope,
            row.tenantId,
            row.staffUserId,
            row.consumerId,
            row.identityTokenGuid,
            row.accessType,
            row.hasRestrictedAccess,
            row.roleId,
            row.launchedByAdminId,
            createdAt,
            input.launchedBySessionId ?? null,
          ],
        },
        {
          text: refreshTokenInsertText,
          values: [keys.refreshTokenHash, row.id, createdAt, keys.refreshTokenExpiresAt.toISOString()],
        },
      ];
    },

    firstPair(keys, input, names) {
      return pairFor({ ...sessionColumns(keys.id, input), ...names }, keys.refreshToken);
    },

    async upgradeSession(sessionId, change) {
      const now = clock.now();
      const refreshToken = randomToken();
      const [row] = await executeStatement<SessionViewRow>(db, upgradeStatement, [
        change.accessType,
        change.hasRestrictedAccess,
        change.roleId,
        sessionId,
        hashToken(refreshToken),
        now.toISOString(),
        refreshExpiry(now).toISOString(),
      ]);
      if (row === undefined) throw notAuthorized();
      return pairFor(toView(row), refreshToken);
    },

    async refresh(scope, refreshToken, ip) {
      const hash = hashToken(refreshToken);
      const now = clock.now();
      const at = now.toISOString();
      const successor = randomToken();
      const successorHash = hashToken(successor);
      const { startedAfter, pendingStartedAfter } = endingInstants(now, config.sessionMaxMinutes);
      const row = await rotate({
        hash,
        values: [
          new Date(now.getTime() - refreshGraceMs).toISOString(),
          at,
          scope,
          hash,
          successorHash,
          refreshExpiry(now).toISOString(),
          startedAfter.toISOString(),
          pendingStartedAfter.toISOString(),
        ],
      });
      if (row === undefined) throw notAuthorized();
      if (!row.usable) {
        await recordEndings(endingDeps, { sessionIds: [row.id] }, ip);
        throw notAuthorized();
      }
      const view = toView(row);
      if (row.issued) return pairFor(view, successor);
      await revokeSession(view.id, 'refresh-token-reuse');
      await audit.record({
        event: `${scope}.refresh.reuse`,
        outcome: 'revoked',
        actor: subjectOf(view),
        tenantId: view.tenantId,
        ip,
        detail: { sessionId: view.id },
      });
      throw notAuthorized();
    },

    revokeSession,

    async identifySession(request, scope) {
      const bearer = bearerOf(request);
      if (bearer !== undefined) {
        const claims = await verifyAccessToken(bearer, true);
        if (claims !== undefined && claims.scope === scope) return claims.sid;
      }
      const refreshToken = service.refreshTokenOf(request);
      if (refreshToken === undefined) return undefined;
      const [found] = await db
        .select({ sessionId: sessions.id, scope: sessions.scope })
        .from(refreshTokens)
        .innerJoin(sessions, eq(refreshTokens.sessionId, sessions.id))
        .where(eq(refreshTokens.hash, hashToken(refreshToken)));
      return found?.scope === scope ? found.sessionId : undefined;
    },

    async authenticate(request, scope, options = {}) {
      const bearer = bearerOf(request);
      if (bearer === undefined) throw notAuthorized();
      const claims = await verifyAccessToken(bearer, false);
      if (claims === undefined) throw notAuthorized();
      // Revocation must hold on every instance at once, so the session row is read on each call.
      const row = await liveSession(claims.sid);
      if (row === undefined) {
        await recordEndings(endingDeps, { sessionIds: [claims.sid] }, request.ip);
        throw notAuthorized();
      }
      if (claims.scope !== scope || row.scope !== scope) throw notPermitted();
      if (claims.hasRestrictedAccess && !options.allowRestricted) throw notPermitted();
      return {
        ...toPrincipal(row),
        hasRestrictedAccess: claims.hasRestrictedAccess,
        accessType: claims.accessType,
      };
    },

    requireSession(scope, options) {
      return async (request) => {
        request.principal = await service.authenticate(request, scope, options);
      };
    },

    setRefreshCookie(reply, scope, result) {
      reply.setCookie(refreshCookieName, result.refreshToken, {
        httpOnly: true,
        sameSite: 'strict',
        secure: config.publicScheme === 'https',
        path: refreshCookiePath(scope),
        maxAge: result.refreshTokenExpiresIn * 60,
      });
    },

    clearRefreshCookie(reply, scope) {
      reply.clearCookie(refreshCookieName, {
        httpOnly: true,
        sameSite: 'strict',
        secure: config.publicScheme === 'https',
        path: refreshCookiePath(scope),
      });
    },

    refreshTokenOf(request) {
      const fromCookie = request.cookies[refreshCookieName];
      if (fromCookie !== undefined && fromCookie !== '') return fromCookie;
      const body = request.body as { refreshToken?: unknown } | undefined;
      return typeof body?.refreshToken === 'string' && body.refreshToken !== ''
        ? body.refreshToken
        : undefined;
    },
  };
  return service;
}
