import { z } from 'zod';
import { customerIdSchema } from './schemas.ts';

/**
 * The operator console's data pages (issue 43): a tenant's consumers and mailings, and the audit
 * log. The same services as the operator commands answer them.
 */

const isoDateTime = z.iso.datetime({ offset: true });

/** A consumers CSV written: every row valid, nothing written otherwise. */
export const consumerImportResultSchema = z.object({
  rows: z.number().int().nonnegative(),
  created: z.number().int().nonnegative(),
  updated: z.number().int().nonnegative(),
});
export type ConsumerImportResult = z.infer<typeof consumerImportResultSchema>;

export const mailingNameSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/);

export const mailingIssueQuerySchema = z.strictObject({ mailing: mailingNameSchema.optional() });

const mailingSummarySchema = z.object({
  mailing: z.string(),
  links: z.number().int().nonnegative(),
  /** Links not revoked and not expired yet. */
  liveLinks: z.number().int().nonnegative(),
  revokedLinks: z.number().int().nonnegative(),
  issuedAt: isoDateTime,
  /** The latest expiry of its links. */
  expiresAt: isoDateTime,
});
export type MailingSummary = z.infer<typeof mailingSummarySchema>;

export const mailingListSchema = z.object({ mailings: z.array(mailingSummarySchema) });
export type MailingList = z.infer<typeof mailingListSchema>;

export const mailingRevokeResultSchema = z.object({ mailing: z.string(), revoked: z.number().int() });
export type MailingRevokeResult = z.infer<typeof mailingRevokeResultSchema>;

export const auditOutcomes = ['success', 'failure', 'locked', 'revoked'] as const;

const auditFilterSchema = z.strictObject({
  customerId: customerIdSchema.optional(),
  /** Who acted, as the row names them: `admin:3`, or the username typed at a failed sign-in. */
  actor: z.string().trim().min(1).max(200).optional(),
  /** The tenant's own id of a consumer: the rows the consumer's sign-ins and links left. */
  consumerId: z.string().trim().min(1).max(64).optional(),
  ip: z.string().trim().min(1).max(64).optional(),
  event: z.string().trim().min(1).max(100).optional(),
  outcome: z.enum(auditOutcomes).optional(),
  /** Inclusive. */
  from: isoDateTime.optional(),
  /** Exclusive. */
  to: isoDateTime.optional(),
});
export type AuditFilterQuery = z.infer<typeof auditFilterSchema>;

const auditPageSizeMax = 100;

export const auditSearchQuerySchema = auditFilterSchema.extend({
  /** The `nextCursor` of the page before; opaque. */
  cursor: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(auditPageSizeMax).optional(),
});
export type AuditSearchQuery = z.infer<typeof auditSearchQuerySchema>;

const auditExportFormats = ['csv', 'jsonl'] as const;
export const auditExportQuerySchema = auditFilterSchema.extend({ format: z.enum(auditExportFormats) });
export type AuditExportQuery = z.infer<typeof auditExportQuerySchema>;

const auditRowSchema = z.object({
  id: z.number().int(),
  at: isoDateTime,
  event: z.string(),
  outcome: z.string(),
  actor: z.string().nullable(),
  customerId: z.number().int().nullable(),
  ip: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
});
export type AuditRowView = z.infer<typeof auditRowSchema>;

export const auditPageSchema = z.object({
  rows: z.array(auditRowSchema),
  /** Null on the last page. */
  nextCursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof auditPageSchema>;
