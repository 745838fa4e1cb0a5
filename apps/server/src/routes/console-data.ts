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
import { exportAudit } from '../services/audit-export.ts';
import { auditFilterOf, searchAudit } from '../services/audit-search.ts';
import {
  assertConsoleAdmin,
  consoleActorOf,
  consoleAdminChange,
  consoleAuditQuery,
} from '../services/console.ts';
import { importConsumersAudited } from '../services/consumer-import.ts';
import {
  defaultMailingName,
  issueLinksTo,
  listMailings,
  recordLinksIssued,
  revokeMailingAudited,
} from '../services/mailings.ts';
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
const adminOnly = 'Admins only (else 403).';
const stepUpNote =
  'Needs a second factor used in the admin session within the last 15 minutes ' +
  '(else 403 with `stepUpRequired: true`; step up with `POST /api/auth/v1/admin/sign-in/second-factor`); ' +
  'audited with the acting admin.';
const auditReaders =
  "Admins read every organization's rows; a customer manager only their own organization's, which " +
  'a missing `customerId` means (another organization answers 404, and rows of no organization never reach them).';
const refusals = {
  400: errorBodySchema,
  401: errorBodySchema,
  403: errorBodySchema,
  404: errorBodySchema,
} as const;
const csvText = z.string().describe('CSV with a header row');
const organizationParams = z.strictObject({ customerId: customerIdSchema });

/** The console's rule (`services/console.ts`) judges who may make each call. */
const consoleActor = (ctx: AppContext, request: FastifyRequest) => consoleActorOf(ctx, principalOf(request));

export function consoleDataRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  return async (app) => {
    // Both scopes reach these calls: the console's rule answers 403 to anyone it does not serve.
    const staffSession = requireSession(ctx, ['admin', 'customer']);

    app.get(
      `${prefix}/audit`,
      {
        preHandler: staffSession,
        schema: {
          summary: 'Search the audit log, newest first, a page at a time',
          description: `${auditReaders} Every filter narrows the rows; \`consumerId\` needs \`customerId\`. Pass a page's \`nextCursor\` as \`cursor\` for the next page.`,
          tags,
          security,
          querystring: auditSearchQuerySchema,
          response: { 200: auditPageSchema, ...refusals },
        },
      },
      async (request) =>
        searchAudit(ctx.db, consoleAuditQuery(await consoleActor(ctx, request), request.query)),
    );

    app.get(
      `${prefix}/audit/export`,
      {
        preHandler: staffSession,
        schema: {
          summary: 'Export the audit rows a filter picks, oldest first, as CSV or JSON lines',
          description: `${auditReaders} The export is itself audited with the acting user.`,
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
        const actor = await consoleActor(ctx, request);
        const { format, ...query } = consoleAuditQuery(actor, request.query);
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
              actor: actor.auditName,
              tenantId: query.customerId ?? null,
              ip: request.ip,
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
        preHandler: staffSession,
        schema: {
          summary: "An organization's mailings, newest first, with their links counted",
          description: adminOnly,
          tags,
          security,
          params: organizationParams,
          response: { 200: mailingListSchema, ...refusals },
        },
      },
      async (request) => {
        assertConsoleAdmin(await consoleActor(ctx, request));
        const tenant = await tenantByCustomerId(ctx.db, request.params.customerId);
        return { mailings: await listMailings(ctx.db, ctx.clock, tenant.customerId) };
      },
    );

    app.post(
      `${prefix}/mailings/:mailing/revoke`,
      {
        preHandler: staffSession,
        schema: {
          summary:
            'Revoke every link of a mailing: they stop working at once, and the sessions they opened end',
          description: `${adminOnly} ${stepUpNote}`,
          tags,
          security,
          params: z.strictObject({ mailing: mailingNameSchema }),
          response: { 200: mailingRevokeResultSchema, ...refusals },
        },
      },
      async (request) => {
        const author = consoleAdminChange(ctx, await consoleActor(ctx, request), request.ip);
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
      const upload = { bodyLimit: consoleCsvLimitBytes, preHandler: staffSession } as const;
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
            description: `${adminOnly} ${stepUpNote} A file with any problem writes nothing: 400 \`InvalidImportFile\` lists each problem with its line and column.`,
            response: { 200: consumerImportResultSchema, ...refusals },
          },
        },
        async (request) => {
          const author = consoleAdminChange(ctx, await consoleActor(ctx, request), request.ip);
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
            description: `${adminOnly} ${stepUpNote} A file with any problem issues nothing: 400 \`InvalidImportFile\` lists each problem with its line and column.`,
            querystring: mailingIssueQuerySchema,
            response: {
              200: { description: 'The letter links', content: { 'text/csv': { schema: z.string() } } },
              ...refusals,
              409: errorBodySchema,
            },
          },
        },
        async (request, reply) => {
          const author = consoleAdminChange(ctx, await consoleActor(ctx, request), request.ip);
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
