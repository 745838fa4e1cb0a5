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
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
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
const csvText = (content: string) => ({ contentType: 'text/csv', content });

export function createConsoleDataApi(http: HttpClient): ConsoleDataApi {
  return {
    importConsumers: (customerId, csv, options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: `${organizationPath(customerId)}/consumers`,
        text: csvText(csv),
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
        text: csvText(csv),
        answer: 'text',
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
        scope: 'admin',
      }),
    exportAudit: (query, options = {}) =>
      http.call({
        ...options,
        method: 'GET',
        path: `${prefix}/audit/export`,
        query: { ...query },
        answer: 'text',
        reader: textReader,
        listed: [],
        scope: 'admin',
      }),
  };
}
