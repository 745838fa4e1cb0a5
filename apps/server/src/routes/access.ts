import {
  type AccessResult,
  accessResultSchema,
  customerIdSchema,
  errorBodySchema,
  subdomainParamSchema,
} from '@entry/domain';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicOrigin } from '../config.ts';
import type { AppContext } from '../context.ts';
import { accessTenant } from '../services/access.ts';
import type { AccessTenant } from '../stores/tenants.ts';
import { hotReadOptions, keptAnswerOf } from './hot-read.ts';

export function accessRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const response = { 200: accessResultSchema, 400: errorBodySchema, 404: errorBodySchema };
  /** The answer for each tenant the read cache holds, made once. */
  const answerFor = keptAnswerOf(
    (tenant: AccessTenant): AccessResult => ({
      subdomain: tenant.subdomain,
      target: `${publicOrigin(ctx.config, tenant.subdomain)}/c/`,
      customerId: tenant.id,
      customerName: tenant.name,
    }),
  );
  const lookUp = async (by: { subdomain: string } | { customerId: number }) =>
    answerFor(await accessTenant(ctx, by));

  return async (app) => {
    app.get(
      '/api/auth/v1/access/:subdomain',
      {
        ...hotReadOptions,
        schema: { tags: ['access'], params: z.strictObject({ subdomain: subdomainParamSchema }), response },
      },
      async (request) => {
        return lookUp({ subdomain: request.params.subdomain.toLowerCase() });
      },
    );

    app.get(
      '/api/auth/v1/access/customer/:customerId',
      {
        ...hotReadOptions,
        schema: { tags: ['access'], params: z.strictObject({ customerId: customerIdSchema }), response },
      },
      async (request) => {
        return lookUp({ customerId: request.params.customerId });
      },
    );
  };
}
