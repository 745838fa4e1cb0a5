import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import { auditLog } from '../db/schema.ts';
import type { StatementPart } from '../db/sql.ts';

export type AuditOutcome = 'success' | 'failure' | 'locked' | 'revoked';

export interface AuditEntry {
  /** Dotted name of what happened, e.g. `admin.sign-in`, `refresh.reuse`, `launch.customer`. */
  event: string;
  outcome: AuditOutcome;
  /** Who acted, e.g. `admin:3`, `consumer:17`, or the username typed at a failed sign-in. */
  actor?: string | null;
  tenantId?: number | null;
  ip?: string | null;
  detail?: Record<string, unknown>;
}

/** The append-only audit trail (DESIGN.md section 5): rows are only ever inserted. */
export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Several rows in one insert (the batched link openings). */
  recordMany(entries: AuditEntry[]): Promise<void>;
  /**
   * The insert of one row, not yet run: for a caller that writes it in the same statement as the
   * writes it describes (a sign-in), so the row commits with them, in the same round trip.
   */
  insertOf(entry: AuditEntry): StatementPart;
}

const insertText =
  'INSERT INTO audit_log (at, event, outcome, actor, tenant_id, ip, detail) ' +
  'VALUES ($1::timestamptz, $2::text, $3::text, $4::text, $5::integer, $6::text, $7::text::jsonb)';

export function createAuditLog(db: Database, clock: Clock): AuditLog {
  const rowOf = (entry: AuditEntry, at: Date) => ({
    at,
    event: entry.event,
    outcome: entry.outcome,
    actor: entry.actor ?? null,
    tenantId: entry.tenantId ?? null,
    ip: entry.ip ?? null,
    detail: entry.detail ?? {},
  });
  return {
    async record(entry) {
      await db.insert(auditLog).values(rowOf(entry, clock.now()));
    },
    async recordMany(entries) {
      if (entries.length === 0) return;
      const at = clock.now();
      await db.insert(auditLog).values(entries.map((entry) => rowOf(entry, at)));
    },
    insertOf(entry) {
      const row = rowOf(entry, clock.now());
      return {
        text: insertText,
        values: [
          row.at.toISOString(),
          row.event,
          row.outcome,
          row.actor,
          row.tenantId,
          row.ip,
          JSON.stringify(row.detail),
        ],
      };
    },
  };
}
