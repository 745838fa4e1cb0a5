import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { AccessType, AuthTokenResult } from '@entry/domain';
import { and, eq, isNull } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { type JWTPayload, errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import '@fastify/cookie';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { consumers, refreshTokens, type Scope, sessions, staffUsers } from '../db/schema.ts';
import { notAuthorized, notPermitted } from '../errors.ts';
import type { AuditLog } from './audit.ts';
import type { SigningKeys } from './keys.ts';

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

export interface SessionService {
  /** Creates a server-side session and its first token pair. */
  createSession(input: NewSession): Promise<AuthTokenResult>;
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

export function randomToken(): string {
  return randomBytes(32).toString('base64url');
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

function toPrincipal(row: SessionRow): SessionPrincipal {
  return {
    sessionId: row.id,
    scope: row.scope,
    tenantId: row.tenantId,
    staffUserId: row.staffUserId,
    consumerId: row.consumerId,
    identityTokenGuid: row.identityTokenGuid,
    accessType: row.accessType,
    hasRestrictedAccess: row.hasRestrictedAccess,
    roleId: row.roleId,
    launchedByAdminId: row.launchedByAdminId,
  };
}

function subjectOf(row: SessionRow): string {
  return `${row.scope}:${row.staffUserId ?? row.consumerId ?? 'anonymous'}`;
}

export function createSessionService(deps: {
  db: Database;
  config: Pick<Config, 'accessTokenMinutes' | 'refreshTokenMinutes' | 'publicScheme' | 'clock'>;
  keys: SigningKeys;
  audit: AuditLog;
}): SessionService {
  const { db, config, keys, audit } = deps;
  const clock = config.clock;

  async function displayNameOf(staffUserId: number | null): Promise<string | undefined> {
    if (staffUserId === null) return undefined;
    const [user] = await db
      .select({ displayName: staffUsers.displayName })
      .from(staffUsers)
      .where(eq(staffUsers.id, staffUserId));
    return user?.displayName;
  }

  /** A consumer's name only once the session has full access: an MFA-pending token names no one. */
  async function nameOf(row: SessionRow): Promise<string | undefined> {
    if (row.consumerId === null) return displayNameOf(row.staffUserId);
    if (row.hasRestrictedAccess) return undefined;
    const [consumer] = await db
      .select({ name: consumers.name })
      .from(consumers)
      .where(eq(consumers.id, row.consumerId));
    return consumer?.name;
  }

  async function signAccessToken(row: SessionRow): Promise<string> {
    const key = await keys.active();
    const issuedAt = Math.floor(clock.now().getTime() / 1000);
    const [name, launchedByName] = await Promise.all([nameOf(row), displayNameOf(row.launchedByAdminId)]);
    const claims: Omit<AccessClaims, keyof JWTPayload> = {
      scope: row.scope,
      sid: row.id,
      accessType: row.accessType,
      hasRestrictedAccess: row.hasRestrictedAccess,
      tid: row.tenantId,
      user: { ...(name === undefined ? {} : { name }), context: { roleId: row.roleId } },
      ...(launchedByName === undefined ? {} : { launchedBy: { name: launchedByName } }),
      ...(row.identityTokenGuid === null || row.hasRestrictedAccess
        ? {}
        : { identityToken: row.identityTokenGuid }),
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
      .setSubject(subjectOf(row))
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + config.accessTokenMinutes * 60)
      .setJti(randomUUID())
      .sign(key.privateKey);
  }

  async function issuePair(
    row: SessionRow,
    refreshToken = randomToken(),
  ): Promise<AuthTokenResult & { refreshHash: string }> {
    const refreshHash = hashToken(refreshToken);
    const now = clock.now();
    // Independent of each other: the insert and the signing (which may read a name) run together.
    const [accessToken] = await Promise.all([
      signAccessToken(row),
      db.insert(refreshTokens).values({
        hash: refreshHash,
        sessionId: row.id,
        createdAt: now,
        expiresAt: new Date(now.getTime() + config.refreshTokenMinutes * 60_000),
      }),
    ]);
    return {
      accessToken,
      accessTokenExpiresIn: config.accessTokenMinutes,
      refreshToken,
      refreshTokenExpiresIn: config.refreshTokenMinutes,
      sessionGuid: row.id,
      accessType: row.accessType,
      hasRestrictedAccess: row.hasRestrictedAccess,
      refreshHash,
    };
  }

  const withoutHash = ({
    refreshHash: _,
    ...result
  }: AuthTokenResult & { refreshHash: string }): AuthTokenResult => result;

  async function revokeSession(sessionId: string, reason: string): Promise<void> {
    await db
      .update(sessions)
      .set({ revokedAt: clock.now(), revokedReason: reason })
      .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
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

  async function liveSession(sessionId: string): Promise<SessionRow | undefined> {
    const [row] = await db
      .select()
      .from(sessions)
      .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
    return row;
  }

  const service: SessionService = {
    async createSession(input) {
      const [row] = await db
        .insert(sessions)
        .values({
          id: randomUUID(),
          scope: input.scope,
          tenantId: input.tenantId,
          staffUserId: input.staffUserId ?? null,
          consumerId: input.consumerId ?? null,
          identityTokenGuid: input.identityTokenGuid ?? null,
          accessType: input.accessType,
          hasRestrictedAccess: input.hasRestrictedAccess,
          roleId: input.roleId,
          launchedByAdminId: input.launchedByAdminId ?? null,
          createdAt: clock.now(),
        })
        .returning();
      if (row === undefined) throw new Error('session insert returned no row');
      return withoutHash(await issuePair(row));
    },

    async upgradeSession(sessionId, change) {
      const [row] = await db
        .update(sessions)
        .set(change)
        .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)))
        .returning();
      if (row === undefined) throw notAuthorized();
      await db.delete(refreshTokens).where(eq(refreshTokens.sessionId, sessionId));
      return withoutHash(await issuePair(row));
    },

    async refresh(scope, refreshToken, ip) {
      const hash = hashToken(refreshToken);
      const now = clock.now();
      const [found] = await db
        .select({ token: refreshTokens, session: sessions })
        .from(refreshTokens)
        .innerJoin(sessions, eq(refreshTokens.sessionId, sessions.id))
        .where(eq(refreshTokens.hash, hash));
      if (found === undefined || found.session.scope !== scope || found.session.revokedAt !== null) {
        throw notAuthorized();
      }
      if (found.token.expiresAt.getTime() <= now.getTime()) throw notAuthorized();

      let rotatedAt = found.token.rotatedAt;
      if (rotatedAt === null) {
        // Only one caller wins the rotation; a racing caller falls through to the grace rule. The
        // winner names its successor in the same update, one round trip fewer.
        const successor = randomToken();
        const [won] = await db
          .update(refreshTokens)
          .set({ rotatedAt: now, replacedBy: hashToken(successor) })
          .where(and(eq(refreshTokens.hash, hash), isNull(refreshTokens.rotatedAt)))
          .returning({ hash: refreshTokens.hash });
        if (won !== undefined) return withoutHash(await issuePair(found.session, successor));
        const [again] = await db
          .select({ rotatedAt: refreshTokens.rotatedAt })
          .from(refreshTokens)
          .where(eq(refreshTokens.hash, hash));
        rotatedAt = again?.rotatedAt ?? now;
      }
      if (now.getTime() - rotatedAt.getTime() <= refreshGraceMs) {
        return withoutHash(await issuePair(found.session));
      }
      await revokeSession(found.session.id, 'refresh-token-reuse');
      await audit.record({
        event: `${scope}.refresh.reuse`,
        outcome: 'revoked',
        actor: subjectOf(found.session),
        tenantId: found.session.tenantId,
        ip,
        detail: { sessionId: found.session.id },
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
      if (row === undefined) throw notAuthorized();
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
