import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { StatementPart } from '../db/sql.ts';
import {
  auditRowInsert,
  insertAuditRows,
  insertFirstLinkOpenings,
  type NewAuditRow,
} from '../stores/audit-log.ts';

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

/** A link read with `addAction=true`: its identity token, from the client's address. */
export interface LinkOpening {
  identityTokenGuid: string;
  consumerId: number;
  tenantId: number;
  ip: string;
}

const hourMs = 60 * 60_000;

/** The append-only audit trail (docs/rules.md#audit): rows are only ever inserted. */
export interface AuditLog {
  record(entry: AuditEntry): Promise<void>;
  /** Several rows in one insert (the endings of a session's launched children, say). */
  recordMany(entries: AuditEntry[]): Promise<void>;
  /**
   * A `consumer.link.opened` row for each opening whose link and address have none yet this hour,
   * so holding a link cannot flood the trail. The insert of the hour's mark decides, on every
   * instance at once.
   */
  recordLinkOpenings(openings: LinkOpening[]): Promise<void>;
  /**
   * The insert of one row, not yet run: for a caller that writes it in the same statement as the
   * writes it describes (a sign-in), so the row commits with them, in the same round trip.
   */
  insertOf(entry: AuditEntry): StatementPart;
}

/**
 * `onEntry` hears each entry as it is written or handed out to be written (the metrics count
 * them); an entry handed out whose statement then fails is heard all the same.
 */
export function createAuditLog(
  db: Database,
  clock: Clock,
  onEntry: (entry: AuditEntry) => void = () => undefined,
): AuditLog {
  const rowOf = (entry: AuditEntry, at: Date): NewAuditRow => {
    onEntry(entry);
    return rowFor(entry, at);
  };
  const rowFor = (entry: AuditEntry, at: Date): NewAuditRow => ({
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
      await insertAuditRows(db, [rowOf(entry, clock.now())]);
    },
    async recordMany(entries) {
      const at = clock.now();
      await insertAuditRows(
        db,
        entries.map((entry) => rowOf(entry, at)),
      );
    },
    async recordLinkOpenings(openings) {
      const at = clock.now();
      const hour = new Date(at.getTime() - (at.getTime() % hourMs));
      await insertFirstLinkOpenings(
        db,
        hour,
        openings.map((opening) => ({
          identityTokenGuid: opening.identityTokenGuid,
          ip: opening.ip,
          row: rowFor(
            {
              event: 'consumer.link.opened',
              outcome: 'success',
              actor: `consumer:${opening.consumerId}`,
              tenantId: opening.tenantId,
              ip: opening.ip,
              detail: { identityToken: opening.identityTokenGuid },
            },
            at,
          ),
        })),
      );
    },
    insertOf(entry) {
      return auditRowInsert(rowOf(entry, clock.now()));
    },
  };
}
