import {
  type AccessResult,
  accessResultSchema,
  customerIdSchema,
  errorBodySchema,
  subdomainParamSchema,
} from '@entry/domain';
import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicOrigin } from '../config.ts';
import type { AppContext } from '../context.ts';
import { tenants } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import { readCacheFor } from '../stores/read-cache.ts';
import { hotReadOptions, keptAnswer } from './hot-read.ts';

export function accessRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const resultOf = (tenant: typeof tenants.$inferSelect): AccessResult => ({
    subdomain: tenant.subdomain,
    target: `${publicOrigin(ctx.config, tenant.subdomain)}/c/`,
    customerId: tenant.id,
    customerName: tenant.name,
  });
  const response = { 200: accessResultSchema, 400: errorBodySchema, 404: errorBodySchema };
  const cache = readCacheFor(ctx.db, ctx.clock).access;
  const lookUp = async (key: string, find: () => Promise<(typeof tenants.$inferSelect)[]>) => {
    const result = await cache.get(key, async () => {
      const [tenant] = await find();
      return tenant === undefined ? null : keptAnswer(resultOf(tenant));
    });
    if (result === null) throw refuse('accessTenantNotFound');
    return result;
  };

  return async (app) => {
    app.get(
      '/api/auth/v1/access/:subdomain',
      {
        ...hotReadOptions,
        schema: { tags: ['access'], params: z.strictObject({ subdomain: subdomainParamSchema }), response },
      },
      async (request) => {
        const subdomain = request.params.subdomain.toLowerCase();
        return lookUp(`subdomain:${subdomain}`, () =>
          ctx.db.select().from(tenants).where(eq(tenants.subdomain, subdomain)),
        );
      },
    );

    app.get(
      '/api/auth/v1/access/customer/:customerId',
      {
        ...hotReadOptions,
        schema: { tags: ['access'], params: z.strictObject({ customerId: customerIdSchema }), response },
      },
      async (request) => {
        const { customerId } = request.params;
        return lookUp(`customer:${customerId}`, () =>
          ctx.db.select().from(tenants).where(eq(tenants.id, customerId)),
        );
      },
    );
  };
}
