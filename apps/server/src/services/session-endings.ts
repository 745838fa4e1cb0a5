import { sql } from 'drizzle-orm';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { Scope } from '../db/schema.ts';
import { executeRows } from '../db/sql.ts';
import { endingCauseAtInstantsRow } from '../stores/sessions.ts';
import type { AuditLog } from './audit.ts';

/** A session waiting for its second factor lives this long from its start, and is never renewed. */
export const pendingSessionLifetimeMs = 10 * 60_000;

/** Why a session ended; the first four are decided by `endingCause`, the rest by the calls that revoke. */
export type EndingCause =
  | 'mfa-pending-expired'
  | 'session-max-age'
  | 'launching-session-ended'
  | 'link-revoked'
  | 'link-expired'
  | 'sign-out'
  | 'refresh-token-reuse'
  | 'user-disabled'
  | 'password-changed';

/** The instants a session's grounds are judged at, as the parameters of `endingCause`. */
export interface EndingInstants {
  now: Date;
  /** Sessions that started at or before this are past `SESSION_MAX_MINUTES`. */
  startedAfter: Date;
  /** Sessions still pending their second factor that started at or before this have ended. */
  pendingStartedAfter: Date;
}

export function endingInstants(now: Date, sessionMaxMinutes: number): EndingInstants {
  return {
    now,
    startedAfter: new Date(now.getTime() - sessionMaxMinutes * 60_000),
    pendingStartedAfter: new Date(now.getTime() - pendingSessionLifetimeMs),
  };
}

/** Which sessions to look at: these and the ones they launched, or those opened with a mailing's links. */
export type EndingCandidates = { sessionIds: string[] } | { mailing: string };

interface EndedRow {
  id: string;
  scope: Scope;
  tenant_id: number | null;
  staff_user_id: string | null;
  consumer_id: string | null;
  cause: EndingCause;
  launched_by_session_id: string | null;
}

/** Session ids as one uuid[] parameter: drizzle would spread an array into a list of parameters. */
const idArray = (ids: string[]) => sql`string_to_array(${ids.join(',')}, ',')::uuid[]`;

export interface EndingDeps {
  db: Database;
  clock: Clock;
  audit: AuditLog;
  sessionMaxMinutes: number;
}

/** The deps of `recordEndings` from a server's or an operator command's context. */
export function endingDepsOf(
  ctx: Omit<EndingDeps, 'sessionMaxMinutes'> & { config: Pick<Config, 'sessionMaxMinutes'> },
): EndingDeps {
  return { db: ctx.db, clock: ctx.clock, audit: ctx.audit, sessionMaxMinutes: ctx.config.sessionMaxMinutes };
}

/**
 * Marks the candidates whose grounds have gone as revoked, with the cause, and audits each once:
 * of callers racing on a session, only the update that finds it unrevoked returns it. A
 * mailing's sessions are looked for among those young enough to be live.
 */
export async function recordEndings(
  deps: EndingDeps,
  candidates: EndingCandidates,
  ip: string | null = null,
): Promise<number> {
  const instants = endingInstants(deps.clock.now(), deps.sessionMaxMinutes);
  const among =
    'sessionIds' in candidates
      ? sql`(s.id = ANY(${idArray(candidates.sessionIds)}) OR s.launched_by_session_id = ANY(${idArray(candidates.sessionIds)}))`
      : sql`s.created_at > i.started_after AND s.identity_token_guid IN (
          SELECT guid FROM identity_tokens WHERE mailing_id = ${candidates.mailing})`;
  const ended = await executeRows<EndedRow>(
    deps.db,
    sql`WITH i AS (
        SELECT ${instants.now.toISOString()}::timestamptz AS now,
          ${instants.startedAfter.toISOString()}::timestamptz AS started_after,
          ${instants.pendingStartedAfter.toISOString()}::timestamptz AS pending_started_after
      ),
      judged AS (
        SELECT s.id, ${endingCauseAtInstantsRow} AS cause
        FROM sessions s CROSS JOIN i WHERE s.revoked_at IS NULL AND ${among}
      )
      UPDATE sessions SET revoked_at = (SELECT now FROM i), revoked_reason = judged.cause
      FROM judged
      WHERE sessions.id = judged.id AND judged.cause IS NOT NULL AND sessions.revoked_at IS NULL
      RETURNING sessions.id::text AS id, sessions.scope, sessions.tenant_id,
        sessions.staff_user_id::text AS staff_user_id, sessions.consumer_id::text AS consumer_id,
        judged.cause, sessions.launched_by_session_id::text AS launched_by_session_id`,
  );
  await deps.audit.recordMany(
    ended.map((row) => ({
      event: `${row.scope}.session.end`,
      outcome: 'revoked' as const,
      actor: `${row.scope}:${row.staff_user_id ?? row.consumer_id ?? 'anonymous'}`,
      tenantId: row.tenant_id,
      ip,
      detail: {
        sessionId: row.id,
        cause: row.cause,
        ...(row.launched_by_session_id === null ? {} : { launchedBySessionId: row.launched_by_session_id }),
      },
    })),
  );
  return ended.length;
}
