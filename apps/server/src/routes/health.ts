import { errorBodySchema } from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { pendingMigrations } from '../stores/migrations.ts';

/**
 * Probes for load balancers and orchestrators: liveness (`/api/health`, the process answers) and
 * readiness (`/api/ready`, the database answers and has every migration this build ships).
 */

/** A database that does not answer within this time counts as unreachable. */
export const readinessTimeoutMs = 2000;

export const healthMessages = {
  databaseUnreachable: 'The database does not answer.',
  migrationsPending: (names: string[]) => `The database lacks the migrations ${names.join(', ')}.`,
} as const;

const notReady = (reason: string) => refuse('notReady', { errors: [{ field: 'database', message: reason }] });

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export function healthRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const probe = { logLevel: 'warn' } as const;

  async function migrationsMissing(): Promise<string[]> {
    try {
      return await withTimeout(pendingMigrations(ctx.db), readinessTimeoutMs);
    } catch {
      throw notReady(healthMessages.databaseUnreachable);
    }
  }

  return async (app) => {
    app.get(
      '/api/health',
      {
        ...probe,
        schema: { tags: ['operations'], response: { 200: z.object({ status: z.literal('ok') }) } },
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
          tags: ['operations'],
          response: { 200: z.object({ status: z.literal('ready') }), 503: errorBodySchema },
        },
      },
      async (_request, reply) => {
        reply.header('Cache-Control', 'no-store');
        const pending = await migrationsMissing();
        if (pending.length > 0) throw notReady(healthMessages.migrationsPending(pending));
        return { status: 'ready' as const };
      },
    );
  };
}
