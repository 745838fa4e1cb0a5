import { errorBodySchema } from '@entry/domain';
import { pgTable, text } from 'drizzle-orm/pg-core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { migrationFiles } from '../db/index.ts';
import { refuse } from '../refusals.ts';

/**
 * Probes for load balancers and orchestrators: liveness (`/api/health`, the process answers) and
 * readiness (`/api/ready`, the database answers and has every migration this build ships).
 */

/** The table the migration runner keeps; only readiness reads it. */
const schemaMigrations = pgTable('schema_migrations', { name: text('name').primaryKey() });

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
  const shipped = migrationFiles().map((migration) => migration.name);
  const probe = { logLevel: 'warn' } as const;

  async function pendingMigrations(): Promise<string[]> {
    let applied: Set<string>;
    try {
      const rows = await withTimeout(ctx.db.select().from(schemaMigrations), readinessTimeoutMs);
      applied = new Set(rows.map((row) => row.name));
    } catch {
      throw notReady(healthMessages.databaseUnreachable);
    }
    return shipped.filter((name) => !applied.has(name));
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
        const pending = await pendingMigrations();
        if (pending.length > 0) throw notReady(healthMessages.migrationsPending(pending));
        return { status: 'ready' as const };
      },
    );
  };
}
