import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import { auditLog, linkOpenings } from '../db/schema.ts';
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

/** A link read with `addAction=true`: its identity token, from the client's address. */
export interface LinkOpening {
  identityTokenGuid: string;
  consumerId: number;
  tenantId: number;
  ip: string;
}

const hourMs = 60 * 60_000;

/** The append-only audit trail (DESIGN.md section 5): rows are only ever inserted. */
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
    async recordLinkOpenings(openings) {
      const at = clock.now();
      const hour = new Date(at.getTime() - (at.getTime() % hourMs));
      const byKey = new Map<string, LinkOpening>();
      for (const opening of openings) {
        const key = `${opening.identityTokenGuid} ${opening.ip}`;
        if (!byKey.has(key)) byKey.set(key, opening);
      }
      if (byKey.size === 0) return;
      // In key order: two instances marking the same openings then wait on each other, never deadlock.
      const marks = [...byKey.values()]
        .map(({ identityTokenGuid, ip }) => ({ hour, identityTokenGuid, ip }))
        .sort((a, b) => compareText(a.identityTokenGuid, b.identityTokenGuid) || compareText(a.ip, b.ip));
      await db.transaction(async (tx) => {
        const marked = await tx
          .insert(linkOpenings)
          .values(marks)
          .onConflictDoNothing()
          .returning({ identityTokenGuid: linkOpenings.identityTokenGuid, ip: linkOpenings.ip });
        const firstOpenings = marked.flatMap(
          (mark) => byKey.get(`${mark.identityTokenGuid} ${mark.ip}`) ?? [],
        );
        if (firstOpenings.length === 0) return;
        await tx.insert(auditLog).values(
          firstOpenings.map((opening) =>
            rowOf(
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
          ),
        );
      });
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

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}
