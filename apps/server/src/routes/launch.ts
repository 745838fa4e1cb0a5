import { customerIdSchema, errorBodySchema, launchKinds, launchResultSchema } from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { createLaunchToken } from '../services/launch.ts';
import { principalOf, requireSession } from './session-http.ts';

export function launchRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    for (const kind of launchKinds) {
      app.post(
        `/api/auth/v1/launch/${kind}/:customerId`,
        {
          config: { failureLimited: true },
          preHandler: requireSession(ctx, 'admin'),
          schema: {
            summary: `Launch a ${kind === 'customer' ? 'customer portal' : 'DashBilling'} sign-in for a tenant`,
            description:
              'Needs a second factor used in the admin session within the last 15 minutes ' +
              '(else 403 with `stepUpRequired: true`; step up with `POST /api/auth/v1/admin/sign-in/second-factor`).',
            tags: ['launch'],
            security: [{ bearer: [] }],
            params: z.strictObject({ customerId: customerIdSchema }),
            response: {
              200: launchResultSchema,
              400: errorBodySchema,
              401: errorBodySchema,
              403: errorBodySchema,
              404: errorBodySchema,
            },
          },
        },
        async (request) => {
          const token = await createLaunchToken(ctx, principalOf(request), {
            customerId: request.params.customerId,
            kind,
            ip: request.ip,
          });
          return { token };
        },
      );
    }
  };
}
