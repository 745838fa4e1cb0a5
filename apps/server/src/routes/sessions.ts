import type { Scope } from '@entry/domain';
import { authTokenResultSchema, errorBodySchema, refreshRequestSchema } from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import {
  clearRefreshCookie,
  identifySession,
  refreshTokenOf,
  requireSession,
  setRefreshCookie,
} from './session-http.ts';
import { noContentSchema } from './staff-routes.ts';

const scopes: Scope[] = ['admin', 'customer', 'consumer'];

/** Refresh and sign-out of every scope: the same session rules for all three. */
export function sessionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    for (const scope of scopes) {
      app.post(
        `/api/auth/v1/${scope}/refresh`,
        {
          config: { signInBound: true },
          schema: {
            summary: `Renew ${scope} tokens with the refresh token`,
            description: 'The refresh token comes from its cookie, or else from `refreshToken` in the body.',
            tags: [scope],
            security: [{ refreshCookie: [] }, {}],
            body: refreshRequestSchema,
            response: { 200: authTokenResultSchema, 400: errorBodySchema, 401: errorBodySchema },
          },
        },
        async (request, reply) => {
          const refreshToken = refreshTokenOf(request);
          if (refreshToken === undefined) throw refuse('notAuthorized');
          try {
            const result = await ctx.sessions.refresh(scope, refreshToken, request.ip);
            setRefreshCookie(ctx, reply, scope, result);
            return result;
          } catch (error) {
            clearRefreshCookie(ctx, reply, scope);
            throw error;
          }
        },
      );

      app.post(
        `/api/auth/v1/${scope}/sign-out`,
        {
          schema: {
            summary: `End the ${scope} session`,
            description: 'The session is named by its bearer token (even expired) or its refresh token.',
            tags: [scope],
            security: [{ bearer: [] }, { refreshCookie: [] }, {}],
            body: refreshRequestSchema,
            response: { 204: noContentSchema, 400: errorBodySchema },
          },
        },
        async (request, reply) => {
          const sessionId = await identifySession(ctx, request, scope);
          if (sessionId !== undefined) {
            await ctx.sessions.revokeSession(sessionId, 'sign-out');
            await ctx.audit.record({
              event: `${scope}.sign-out`,
              outcome: 'success',
              ip: request.ip,
              detail: { sessionId },
            });
          }
          clearRefreshCookie(ctx, reply, scope);
          return reply.status(204).send(null);
        },
      );

      if (scope === 'consumer') continue;
      app.post(
        `/api/auth/v1/${scope}/activity`,
        {
          // Authenticating the call records the session's use: nothing else is left to do.
          preHandler: requireSession(ctx, scope),
          schema: {
            summary: `Report that the person in the ${scope} session is active`,
            description:
              'A staff session unused for `STAFF_IDLE_MINUTES` ends; a refresh is no use. The web app ' +
              'calls this while the person is active on a page that sends no other call.',
            tags: [scope],
            security: [{ bearer: [] }],
            response: {
              204: noContentSchema,
              400: errorBodySchema,
              401: errorBodySchema,
              403: errorBodySchema,
            },
          },
        },
        async (_request, reply) => reply.status(204).send(null),
      );
    }
  };
}
