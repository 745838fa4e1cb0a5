import type { AuthTokenResult } from '@entry/domain';
import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import '@fastify/cookie';
import type { Scope } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import type { RequireSessionOptions, SessionPrincipal, SessionService } from '../services/sessions.ts';

/** The HTTP side of sessions: the bearer token and refresh cookie a call carries, and the preHandler. */

export const refreshCookieName = 'entry-refresh';

declare module 'fastify' {
  interface FastifyRequest {
    principal?: SessionPrincipal;
  }
}

type SessionContext = Pick<AppContext, 'config' | 'sessions'>;

function refreshCookiePath(scope: Scope): string {
  return `/api/auth/v1/${scope}`;
}

function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}

/** The refresh token a call carries: the scope's cookie, else `refreshToken` in a JSON body. */
export function refreshTokenOf(request: FastifyRequest): string | undefined {
  const fromCookie = request.cookies[refreshCookieName];
  if (fromCookie !== undefined && fromCookie !== '') return fromCookie;
  const body = request.body as { refreshToken?: unknown } | undefined;
  return typeof body?.refreshToken === 'string' && body.refreshToken !== '' ? body.refreshToken : undefined;
}

/** The principal set by `requireSession`; a route without that preHandler has none. */
export function principalOf(request: FastifyRequest): SessionPrincipal {
  if (request.principal === undefined) throw refuse('notAuthorized');
  return request.principal;
}

/** Verifies the call's bearer token (signature, expiry, scope) and that its session is live. */
export function authenticate(
  ctx: SessionContext,
  request: FastifyRequest,
  scope: Scope | readonly Scope[],
  options: RequireSessionOptions = {},
): Promise<SessionPrincipal> {
  return ctx.sessions.authenticate(bearerOf(request), scope, options, request.ip);
}

/** `authenticate` on a call open to anyone that takes a session too: undefined when it names none. */
export async function authenticateIfBearer(
  ctx: SessionContext,
  request: FastifyRequest,
  scope: Scope,
  options: RequireSessionOptions = {},
): Promise<SessionPrincipal | undefined> {
  return bearerOf(request) === undefined ? undefined : authenticate(ctx, request, scope, options);
}

/** preHandler form of `authenticate`; the principal is then `request.principal`. */
export function requireSession(
  ctx: SessionContext,
  scope: Scope | readonly Scope[],
  options?: RequireSessionOptions,
): preHandlerAsyncHookHandler {
  return async (request) => {
    request.principal = await authenticate(ctx, request, scope, options);
  };
}

/** The session a sign-out call names: its bearer token (even expired) or its refresh token. */
export function identifySession(
  ctx: SessionContext,
  request: FastifyRequest,
  scope: Scope,
): Promise<string | undefined> {
  return ctx.sessions.identify({ bearer: bearerOf(request), refreshToken: refreshTokenOf(request) }, scope);
}

/** The live session a call names by its bearer token (even expired) or its refresh token, if any. */
export function identifyLiveSession(
  ctx: SessionContext,
  request: FastifyRequest,
  scope: Scope,
): ReturnType<SessionService['identifyLive']> {
  return ctx.sessions.identifyLive(
    { bearer: bearerOf(request), refreshToken: refreshTokenOf(request) },
    scope,
  );
}

export function setRefreshCookie(
  ctx: SessionContext,
  reply: FastifyReply,
  scope: Scope,
  result: AuthTokenResult,
): void {
  reply.setCookie(refreshCookieName, result.refreshToken, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.publicScheme === 'https',
    path: refreshCookiePath(scope),
    maxAge: result.refreshTokenExpiresIn * 60,
  });
}

export function clearRefreshCookie(ctx: SessionContext, reply: FastifyReply, scope: Scope): void {
  reply.clearCookie(refreshCookieName, {
    httpOnly: true,
    sameSite: 'strict',
    secure: ctx.config.publicScheme === 'https',
    path: refreshCookiePath(scope),
  });
}
