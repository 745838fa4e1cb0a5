import {
  authTokenResultSchema,
  errorBodySchema,
  identityTokenSignInRequestSchema,
  lookupSignInRequestSchema,
  lookupSignInResponseSchema,
  mfaQuerySchema,
  mfaRequestSchema,
} from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { createConsumerSignIn } from '../services/consumer-sign-in.ts';
import { principalOf, requireSession, setRefreshCookie } from './session-http.ts';

/** Consumer sign-in (docs/rules.md#verification): the rules live in `services/consumer-sign-in.ts`. */
export function consumerSignInRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const signIn = createConsumerSignIn(ctx);

  return async (app) => {
    app.post(
      '/api/auth/v1/consumer/sign-in/identity-token',
      {
        config: { failureLimited: true, signInBound: true },
        schema: {
          summary: 'Sign a consumer in with a Direct letter link',
          tags: ['consumer'],
          body: identityTokenSignInRequestSchema,
          response: { 200: authTokenResultSchema, 400: errorBodySchema, 404: errorBodySchema },
        },
      },
      async (request, reply) => {
        const pair = await signIn.withIdentityToken(request.body, request.ip);
        setRefreshCookie(ctx, reply, 'consumer', pair);
        return pair;
      },
    );

    app.post(
      '/api/auth/v1/consumer/sign-in/lookup',
      {
        config: { failureLimited: true, signInBound: true },
        schema: {
          summary: 'Sign a consumer in by verifying their details',
          description:
            'Where the tenant requires MFA, the tokens are of a pending session and a code is mailed.',
          tags: ['consumer'],
          body: lookupSignInRequestSchema,
          response: {
            200: lookupSignInResponseSchema,
            400: errorBodySchema,
            403: errorBodySchema,
            404: errorBodySchema,
            409: errorBodySchema,
          },
        },
      },
      async (request, reply) => {
        const authToken = await signIn.withLookup(request.body, request.ip);
        setRefreshCookie(ctx, reply, 'consumer', authToken);
        return { authToken };
      },
    );

    const pendingOnly = requireSession(ctx, 'consumer', { allowRestricted: ['MfaPending'] });

    app.post(
      '/api/auth/v1/consumer/sign-in/mfa',
      {
        config: { failureLimited: true, signInBound: true },
        preHandler: pendingOnly,
        schema: {
          summary: 'Complete a pending consumer sign-in with the mailed code',
          tags: ['consumer'],
          security: [{ bearer: [] }],
          querystring: mfaQuerySchema,
          body: mfaRequestSchema,
          response: {
            200: authTokenResultSchema,
            400: errorBodySchema,
            401: errorBodySchema,
            404: errorBodySchema,
            409: errorBodySchema,
          },
        },
      },
      async (request, reply) => {
        const pair = await signIn.completeMfa(
          principalOf(request),
          request.query.mfaCode,
          request.ip,
          request.body?.language,
        );
        setRefreshCookie(ctx, reply, 'consumer', pair);
        return pair;
      },
    );

    app.post(
      '/api/auth/v1/consumer/sign-in/mfa/resend',
      {
        config: { failureLimited: true, signInBound: true },
        preHandler: pendingOnly,
        schema: {
          summary: 'Mail a new code for a pending consumer sign-in',
          tags: ['consumer'],
          security: [{ bearer: [] }],
          querystring: z.strictObject({}),
          body: mfaRequestSchema,
          response: {
            204: z.null().describe('A new code is on its way; the earlier one no longer works.'),
            401: errorBodySchema,
            409: errorBodySchema,
            429: errorBodySchema,
          },
        },
      },
      async (request, reply) => {
        await signIn.resendMfaCode(principalOf(request), request.ip, request.body?.language);
        return reply.code(204).send(null);
      },
    );
  };
}
