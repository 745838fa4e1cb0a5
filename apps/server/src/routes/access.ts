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
import { accessTenant, logoContentSecurityPolicy, logoPath, tenantLogo } from '../services/access.ts';
import { noContact } from '../services/tenants.ts';
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
      contact: tenant.contact ?? noContact,
      defaultLanguage: tenant.settings.defaultLanguage ?? 'en',
      debtCollector: tenant.settings.debtCollector === true,
      ...(tenant.logo === null ? {} : { logoUrl: logoPath(tenant.subdomain, tenant.logo.digest) }),
    }),
  );
  const lookUp = async (by: { subdomain: string } | { customerId: number }) =>
    answerFor(await accessTenant(ctx, by));

  return async (app) => {
    app.get(
      '/api/auth/v1/access/:subdomain',
      {
        ...hotReadOptions,
        config: { signInBound: true },
        schema: {
          summary: "A tenant's sign-in target and contact details, by subdomain",
          tags: ['access'],
          params: z.strictObject({ subdomain: subdomainParamSchema }),
          response,
        },
      },
      async (request) => {
        return lookUp({ subdomain: request.params.subdomain.toLowerCase() });
      },
    );

    app.get(
      '/api/auth/v1/access/:subdomain/logo/:digest',
      {
        logLevel: 'warn',
        schema: {
          summary: "A tenant's logo, by the digest of its content",
          description: 'An unknown tenant or digest answers 404 with the error body.',
          tags: ['access'],
          params: z.strictObject({
            subdomain: subdomainParamSchema,
            digest: z.string().regex(/^[0-9a-f]{32}$/),
          }),
        },
      },
      async (request, reply) => {
        const logo = await tenantLogo(ctx, request.params.subdomain.toLowerCase(), request.params.digest);
        // Its address changes with its content, so a browser keeps it for good; a policy of its
        // own keeps an SVG opened by itself from running or loading anything.
        return reply
          .header('Cache-Control', 'public, max-age=31536000, immutable')
          .header('Content-Security-Policy', logoContentSecurityPolicy)
          .type(logo.mediaType)
          .send(logo.content);
      },
    );

    app.get(
      '/api/auth/v1/access/customer/:customerId',
      {
        ...hotReadOptions,
        config: { signInBound: true },
        schema: {
          summary: "A tenant's sign-in target and contact details, by customer id",
          tags: ['access'],
          params: z.strictObject({ customerId: customerIdSchema }),
          response,
        },
      },
      async (request) => {
        return lookUp({ customerId: request.params.customerId });
      },
    );
  };
}
