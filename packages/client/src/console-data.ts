import {
  type AuditExportQuery,
  type AuditPage,
  type AuditRowView,
  type AuditSearchQuery,
  auditPageSchema,
  type ConsumerImportResult,
  consumerImportResultSchema,
  type MailingRevokeResult,
  type MailingSummary,
  mailingListSchema,
  mailingRevokeResultSchema,
} from '@entry/domain';
import {
  type CallOptions,
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  requireParameter,
} from './http.ts';
import { datedReader, plainReader, type ResponseReader, type WithDates } from './wire.ts';

/** The admin console's data pages: a tenant's consumers and mailings, and the audit log (issue 43). */

export type AuditRowRead = WithDates<AuditRowView, 'at'>;
export type AuditPageRead = Omit<AuditPage, 'rows'> & { rows: AuditRowRead[] };
export type MailingSummaryRead = WithDates<MailingSummary, 'issuedAt' | 'expiresAt'>;

export interface ConsoleDataApi {
  /** POST /api/console/v1/organizations/:customerId/consumers: the CSV, written only when every row is valid. */
  importConsumers(customerId: number, csv: string, options?: CallOptions): Promise<ConsumerImportResult>;
  /** POST /api/console/v1/organizations/:customerId/mailings: the letters CSV in, the letter-links CSV out. */
  issueMailing(
    customerId: number,
    csv: string,
    mailing: string | undefined,
    options?: CallOptions,
  ): Promise<string>;
  /** GET /api/console/v1/organizations/:customerId/mailings, newest first. */
  mailings(customerId: number, options?: CallOptions): Promise<MailingSummaryRead[]>;
  /** POST /api/console/v1/mailings/:mailing/revoke. */
  revokeMailing(mailing: string, options?: CallOptions): Promise<MailingRevokeResult>;
  /** GET /api/console/v1/audit: a page, newest first. */
  searchAudit(query: AuditSearchQuery, options?: CallOptions): Promise<AuditPageRead>;
  /** GET /api/console/v1/audit/export: the filtered rows as CSV or JSON lines. */
  exportAudit(query: AuditExportQuery, options?: CallOptions): Promise<string>;
}

/** The paths whose request body is a CSV file, sent as `{ "csv": text }` through `call`. */
const csvUploadPath = /\/organizations\/\d+\/(consumers|mailings)$/;
const csvAnswerType = /^(text\/csv|application\/x-ndjson)/;

/**
 * The console's calls send and receive CSV, which `call` (JSON in, JSON out, as every other call)
 * does not: this fetch turns an upload's `{ "csv": text }` into the file itself, and a CSV or
 * JSON-lines answer into a JSON string, so the entry page's client stays as it is.
 */
function csvFetch(send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input), 'http://any.host');
    let request = init;
    if (init?.method === 'POST' && csvUploadPath.test(url.pathname) && typeof init.body === 'string') {
      const { csv } = JSON.parse(init.body) as { csv: string };
      const headers = new Headers(init.headers);
      headers.set('Content-Type', 'text/csv');
      request = { ...init, headers, body: csv };
    }
    const response = await send(input, request);
    if (!response.ok || !csvAnswerType.test(response.headers.get('Content-Type') ?? '')) return response;
    return new Response(JSON.stringify(await response.text()), {
      status: response.status,
      headers: { 'Content-Type': 'application/json' },
    });
  };
}

/**
 * An admin client for the console's calls over the portal's token store and hooks: a client of
 * its own, so its CSV handling never reaches the pages everyone loads.
 */
export function createConsoleHttpClient(options: HttpClientOptions): HttpClient {
  return createHttpClient({ ...options, fetch: csvFetch(options.fetch ?? ((...args) => fetch(...args))) });
}

const textReader: ResponseReader<string> = {
  read: (body) => (typeof body === 'string' ? { ok: true, value: body } : { ok: false }),
};
const importReader = plainReader(consumerImportResultSchema);
const mailingsReader = datedReader<{ mailings: MailingSummaryRead[] }>(mailingListSchema);
const revokeReader = plainReader(mailingRevokeResultSchema);
const auditPageReader = datedReader<AuditPageRead>(auditPageSchema);
const prefix = '/api/console/v1';

const organizationPath = (customerId: number) =>
  `${prefix}/organizations/${requireParameter('customerId', customerId)}`;

export function createConsoleDataApi(http: HttpClient): ConsoleDataApi {
  return {
    importConsumers: (customerId, csv, options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: `${organizationPath(customerId)}/consumers`,
        body: { csv },
        reader: importReader,
        listed: [404],
        scope: 'admin',
      }),
    issueMailing: (customerId, csv, mailing, options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: `${organizationPath(customerId)}/mailings`,
        query: { mailing },
        body: { csv },
        reader: textReader,
        listed: [404, 409],
        scope: 'admin',
      }),
    mailings: async (customerId, options = {}) =>
      (
        await http.call({
          ...options,
          method: 'GET',
          path: `${organizationPath(customerId)}/mailings`,
          reader: mailingsReader,
          listed: [404],
          scope: 'admin',
        })
      ).mailings,
    revokeMailing: (mailing, options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: `${prefix}/mailings/${requireParameter('mailing', mailing)}/revoke`,
        reader: revokeReader,
        listed: [404],
        scope: 'admin',
      }),
    searchAudit: (query, options = {}) =>
      http.call({
        ...options,
        method: 'GET',
        path: `${prefix}/audit`,
        query: { ...query },
        reader: auditPageReader,
        listed: [],
      }),
    exportAudit: (query, options = {}) =>
      http.call({
        ...options,
        method: 'GET',
        path: `${prefix}/audit/export`,
        query: { ...query },
        reader: textReader,
        listed: [],
      }),
  };
}
