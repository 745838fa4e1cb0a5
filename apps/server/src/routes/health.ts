import { errorBodySchema } from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { createReadinessCheck } from '../services/health.ts';

/**
 * Probes for load balancers and orchestrators: liveness (`/api/health`, the process answers) and
 * readiness (`/api/ready`, the database answers and has every migration this build ships; ready
 * but `degraded`, with its reasons, while the failure counts cannot be shared through Redis).
 */

export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const checkReadiness = createReadinessCheck(ctx.db, ctx.dependencies);
  const probe = { logLevel: 'warn' } as const;

  return async (app) => {
    app.get(
      '/api/health',
      {
        ...probe,
        schema: {
          summary: 'Liveness: the process answers',
          tags: ['operations'],
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        return { status: 'ok' as const };
      },
    );

    app.get(
      '/api/ready',
      {
        ...probe,
        schema: {
          summary: 'Readiness: the database answers and is migrated',
          tags: ['operations'],
          response: {
            200: z.discriminatedUnion('status', [
              z.object({ status: z.literal('ready') }),
              z.object({ status: z.literal('degraded'), reasons: z.array(z.string()) }),
            ]),
            503: errorBodySchema,
          },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        return checkReadiness();
      },
    );
  };
}
