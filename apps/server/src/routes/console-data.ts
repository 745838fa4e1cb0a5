import { PassThrough, Readable } from 'node:stream';
import {
  auditExportQuerySchema,
  auditPageSchema,
  auditSearchQuerySchema,
  consumerImportResultSchema,
  customerIdSchema,
  errorBodySchema,
  mailingIssueQuerySchema,
  mailingListSchema,
  mailingNameSchema,
  mailingRevokeResultSchema,
} from '@entry/domain';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { exportAudit } from '../services/audit-export.ts';
import { auditFilterOf, searchAudit } from '../services/audit-search.ts';
import { type ChangeAuthor, importConsumersAudited } from '../services/consumer-import.ts';
import {
  defaultMailingName,
  issueLinksTo,
  listMailings,
  recordLinksIssued,
  revokeMailingAudited,
} from '../services/mailings.ts';
import { assertRecentSecondFactor } from '../services/second-factors.ts';
import { tenantByCustomerId } from '../services/tenants.ts';
import { principalOf, requireSession } from './session-http.ts';

/**
 * The console's data pages (issue 43): a tenant's consumers and mailings, and the audit log. The
 * operator commands' services answer, so the console and the CLI keep one rule.
 */

/** A consumers or links CSV the console takes; a larger file goes through the operator command. */
const consoleCsvLimitBytes = 10 * 1024 * 1024;

const prefix = '/api/console/v1';
const tags = ['console'];
const security = [{ bearer: [] }];
const stepUpNote =
  'Needs a second factor used in the admin session within the last 15 minutes ' +
  '(else 403 with `stepUpRequired: true`; step up with `POST /api/auth/v1/admin/sign-in/second-factor`).';
const refusals = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
} as const;
const csvText = z.string().describe('CSV with a header row');
const organizationParams = z.strictObject({ customerId: customerIdSchema });

/**
 * Who acts in the console, for its authorization and audit rows. Only admins yet: they act on any
 * organization.
 */
function consoleActorOf(request: FastifyRequest): ChangeAuthor {
  const principal = principalOf(request);
  if (principal.staffUserId === null) throw refuse('notAuthorized');
  return { actor: `admin:${principal.staffUserId}`, ip: request.ip };
}

/** A change: the console's actor, who must have used a second factor lately. */
function changeAuthorOf(ctx: AppContext, request: FastifyRequest): ChangeAuthor {
  const author = consoleActorOf(request);
  assertRecentSecondFactor(ctx, principalOf(request));
  return author;
}

export function consoleDataRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    const admin = requireSession(ctx, 'admin');

    app.get(
      `${prefix}/audit`,
      {
        preHandler: admin,
        schema: {
          summary: 'Search the audit log, newest first, a page at a time',
          description:
            "Every filter narrows the rows; `consumerId` needs `customerId`. Pass a page's `nextCursor` as `cursor` for the next page.",
          tags,
          security,
          querystring: auditSearchQuerySchema,
          response: { 200: auditPageSchema, ...refusals },
        },
      },
      async (request) => {
        consoleActorOf(request);
        return searchAudit(ctx.db, request.query);
      },
    );

    app.get(
      `${prefix}/audit/export`,
      {
        preHandler: admin,
        schema: {
          summary: 'Export the audit rows a filter picks, oldest first, as CSV or JSON lines',
          tags,
          security,
          querystring: auditExportQuerySchema,
          response: {
            200: {
              description: 'The rows, streamed',
              content: { 'text/csv': { schema: z.string() }, 'application/x-ndjson': { schema: z.string() } },
            },
            ...refusals,
          },
        },
      },
      async (request, reply) => {
        const author = consoleActorOf(request);
        const { format, ...query } = request.query;
        const filter = (await auditFilterOf(ctx.db, query)) ?? { actors: [] };
        const output = new PassThrough();
        const extension = format === 'csv' ? 'csv' : 'jsonl';
        reply
          .type(format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit.${extension}"`);
        // Streamed as it is read: the rows reach the reply while later pages are still being read.
        void exportAudit(ctx.db, { filter, format, output }).then(
          async (rows) => {
            // Reading the audit trail is itself on the record.
            await ctx.audit.record({
              event: 'operator.audit.export',
              outcome: 'success',
              actor: author.actor,
              tenantId: query.customerId ?? null,
              ip: author.ip,
              detail: { ...query, format, rows },
            });
            output.end();
          },
          (error: unknown) => {
            request.log.error({ err: error }, 'the audit export failed midway');
            output.destroy(error instanceof Error ? error : new Error('audit export failed'));
          },
        );
        // The schema documents the text; the reply streams it.
        const streaming: FastifyReply = reply;
        return streaming.send(output);
      },
    );

    app.get(
      `${prefix}/organizations/:customerId/mailings`,
      {
        preHandler: admin,
        schema: {
          summary: "An organization's mailings, newest first, with their links counted",
          tags,
          security,
          params: organizationParams,
          response: { 200: mailingListSchema, ...refusals },
        },
      },
      async (request) => {
        consoleActorOf(request);
        const tenant = await tenantByCustomerId(ctx.db, request.params.customerId);
        return { mailings: await listMailings(ctx.db, ctx.clock, tenant.customerId) };
      },
    );

    app.post(
      `${prefix}/mailings/:mailing/revoke`,
      {
        preHandler: admin,
        schema: {
          summary:
            'Revoke every link of a mailing: they stop working at once, and the sessions they opened end',
          description: stepUpNote,
          tags,
          security,
          params: z.strictObject({ mailing: mailingNameSchema }),
          response: { 200: mailingRevokeResultSchema, ...refusals },
        },
      },
      async (request) => {
        const author = changeAuthorOf(ctx, request);
        const { mailing } = request.params;
        const { revoked } = await revokeMailingAudited(ctx, mailing, author);
        return { mailing, revoked };
      },
    );

    // Only these calls take a CSV body, so its parser and larger limit live in a context of their own.
    const csvUploads: FastifyPluginAsyncZod = async (uploads) => {
      uploads.addContentTypeParser(
        'text/csv',
        { parseAs: 'string', bodyLimit: consoleCsvLimitBytes },
        (_request, body, done) => done(null, body),
      );

      // What both uploads take: an organization's CSV, from an admin who stepped up lately.
      const upload = { bodyLimit: consoleCsvLimitBytes, preHandler: admin } as const;
      const uploadSchema = {
        tags,
        security,
        consumes: ['text/csv'],
        params: organizationParams,
        body: csvText,
      };

      uploads.post(
        `${prefix}/organizations/:customerId/consumers`,
        {
          ...upload,
          schema: {
            ...uploadSchema,
            summary: "Import or update an organization's consumers from CSV, all or nothing",
            description: `${stepUpNote} A file with any problem writes nothing: 400 \`InvalidImportFile\` lists each problem with its line and column.`,
            response: { 200: consumerImportResultSchema, ...refusals },
          },
        },
        async (request) => {
          const author = changeAuthorOf(ctx, request);
          const tenant = await tenantByCustomerId(ctx.db, request.params.customerId);
          return importConsumersAudited(ctx, {
            tenantId: tenant.customerId,
            file: Readable.from([request.body]),
            author,
          });
        },
      );

      uploads.post(
        `${prefix}/organizations/:customerId/mailings`,
        {
          ...upload,
          schema: {
            ...uploadSchema,
            summary: "Issue a mailing's links and answer the letter-links CSV",
            description: `${stepUpNote} A file with any problem issues nothing: 400 \`InvalidImportFile\` lists each problem with its line and column.`,
            querystring: mailingIssueQuerySchema,
            response: {
              200: { description: 'The letter links', content: { 'text/csv': { schema: z.string() } } },
              ...refusals,
              409: errorBodySchema,
            },
          },
        },
        async (request, reply) => {
          const author = changeAuthorOf(ctx, request);
          const tenant = await tenantByCustomerId(ctx.db, request.params.customerId);
          const mailing = request.query.mailing ?? defaultMailingName(ctx.clock.now());
          // Kept until the transaction commits: a refused file answers its problems, never half a file.
          const chunks: string[] = [];
          const collected = new PassThrough({ decodeStrings: false, encoding: 'utf8' });
          collected.on('data', (chunk: string) => chunks.push(chunk));
          const result = await issueLinksTo(
            ctx.db,
            { tenant, mailing, file: Readable.from([request.body]), config: ctx.config, clock: ctx.clock },
            collected,
          );
          collected.end();
          await recordLinksIssued(ctx.audit, tenant.customerId, result, author);
          return reply
            .type('text/csv; charset=utf-8')
            .header('content-disposition', `attachment; filename="${mailing}-links.csv"`)
            .header('x-links-issued', String(result.issued))
            .send(chunks.join(''));
        },
      );
    };
    await app.register(csvUploads);
  };
}
