import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { parseIsoDate } from '@entry/domain';
import { type AuditExportFormat, exportAudit } from '../services/audit-export.ts';
import { tenantBySubdomain } from '../services/tenants.ts';
import { type OperatorCommand, requiredOption, UsageError, writeLine } from './operator-command.ts';

function instantOption(name: string, text: string): Date {
  // A bare date would be a local calendar date; an export range needs an unambiguous instant.
  const date = /^\d{4}-\d{2}-\d{2}$/.test(text) ? parseIsoDate(`${text}T00:00:00Z`) : parseIsoDate(text);
  if (date === null) {
    throw new UsageError(
      `--${name} must be an ISO date (YYYY-MM-DD, UTC midnight) or date-time with a time zone.`,
    );
  }
  return date;
}

const auditExport: OperatorCommand = {
  family: 'audit',
  name: 'export',
  summary: 'Export the audit log of a time range as CSV or JSON lines.',
  options: {
    from: { value: '<ISO time>', required: true, description: 'first instant included' },
    to: { value: '<ISO time>', required: true, description: 'first instant no longer included' },
    tenant: { value: '<subdomain>', description: "only this tenant's rows" },
    format: { value: 'csv|jsonl', choices: ['csv', 'jsonl'], description: 'default csv' },
    out: { value: '<file>', description: 'default: standard output' },
  },
  async run(options, ctx) {
    const from = instantOption('from', requiredOption(options, 'from'));
    const to = instantOption('to', requiredOption(options, 'to'));
    if (to.getTime() <= from.getTime()) throw new UsageError('--to must be later than --from.');
    const tenant = options.tenant === undefined ? undefined : await tenantBySubdomain(ctx.db, options.tenant);
    const format = (options.format ?? 'csv') as AuditExportFormat;
    const file = options.out === undefined ? undefined : createWriteStream(options.out, { mode: 0o600 });
    const count = await exportAudit(ctx.db, {
      filter: { from, to, tenantId: tenant?.customerId },
      format,
      output: file ?? ctx.stdout,
    });
    // Reading the audit trail is itself on the record.
    await ctx.audit.record({
      event: 'operator.audit.export',
      outcome: 'success',
      actor: ctx.actor,
      tenantId: tenant?.customerId ?? null,
      detail: { from: from.toISOString(), to: to.toISOString(), format, rows: count },
    });
    if (file !== undefined) {
      file.end();
      await once(file, 'finish');
      writeLine(ctx.stderr, `Exported ${count} audit rows to ${options.out}.`);
    }
  },
};

export const auditCommands: OperatorCommand[] = [auditExport];
