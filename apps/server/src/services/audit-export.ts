import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Database } from '../db/index.ts';
import { type AuditFilter, type AuditPosition, type AuditRow, auditRowsPage } from '../stores/audit-log.ts';

/** The audit log's rows a filter picks (a time range, a tenant, an actor...), as CSV or JSON lines. */

export type AuditExportFormat = 'csv' | 'jsonl';

export const auditExportColumns = [
  'id',
  'at',
  'event',
  'outcome',
  'actor',
  'tenantId',
  'ip',
  'detail',
] as const;

/** Rows read per query: the export streams, so a year of audit rows never sits in memory. */
const auditExportPageSize = 5000;

export interface AuditExportInput {
  filter: AuditFilter;
  format: AuditExportFormat;
  output: Writable;
}

/** A row as the export and the console show it. */
export function toAuditRecord(row: AuditRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    event: row.event,
    outcome: row.outcome,
    actor: row.actor,
    tenantId: row.tenantId,
    ip: row.ip,
    detail: row.detail,
  };
}

function render(rows: AuditRow[], format: AuditExportFormat): string {
  const records = rows.map(toAuditRecord);
  if (format === 'jsonl') return records.map((record) => `${JSON.stringify(record)}\n`).join('');
  return stringify(
    records.map((record) => [
      record.id,
      record.at,
      record.event,
      record.outcome,
      record.actor ?? '',
      record.tenantId ?? '',
      record.ip ?? '',
      JSON.stringify(record.detail),
    ]),
  );
}

async function write(output: Writable, text: string): Promise<void> {
  if (text !== '' && !output.write(text)) await once(output, 'drain');
}

/** Writes the rows in time order (then id); returns how many it wrote. */
export async function exportAudit(db: Database, input: AuditExportInput): Promise<number> {
  if (input.format === 'csv') await write(input.output, stringify([[...auditExportColumns]]));

  let written = 0;
  let after: AuditPosition | undefined;
  for (;;) {
    const rows = await auditRowsPage(db, { filter: input.filter, after, limit: auditExportPageSize });
    await write(input.output, render(rows, input.format));
    written += rows.length;
    const last = rows.at(-1);
    if (last === undefined || rows.length < auditExportPageSize) return written;
    after = { atMicros: last.atMicros, id: last.id };
  }
}
