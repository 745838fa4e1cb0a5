import { authTokenResultSchema, errorBodySchema, launchTokenSignInRequestSchema } from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../context.ts';
import { signInWithLaunchToken } from '../services/launch.ts';
import { registerSecondFactorRoutes } from './second-factors.ts';
import { setRefreshCookie } from './session-http.ts';
import { registerStaffPasskeyRoutes } from './staff-passkeys.ts';
import { registerStaffPasswordRoutes } from './staff-routes.ts';

export function customerRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    registerStaffPasswordRoutes(app, ctx, 'customer');
    registerSecondFactorRoutes(app, ctx, 'customer');
    registerStaffPasskeyRoutes(app, ctx, 'customer');

    app.post(
      '/api/auth/v1/customer/sign-in/token',
      {
        config: { failureLimited: true, signInBound: true },
        schema: {
          summary: 'Sign in as a customer user with a launch token from an admin',
          tags: ['customer'],
          body: launchTokenSignInRequestSchema,
          response: {
            200: authTokenResultSchema,
            400: errorBodySchema,
            401: errorBodySchema,
            404: errorBodySchema,
          },
        },
      },
      async (request, reply) => {
        const result = await signInWithLaunchToken(ctx, request.body.token, request.ip);
        setRefreshCookie(ctx, reply, 'customer', result);
        return result;
      },
    );
  };
}
