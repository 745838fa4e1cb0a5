import type { Scope } from '@entry/domain';
import type { Database } from '../db/index.ts';
import { executePart, fixedText, type StatementPart, sqlPart } from '../db/sql.ts';

/**
 * The ends of sessions nobody revoked: the grounds a session holds by (its age, its idleness, what
 * launched it, its link), judged inside the statements that use a session, and the statements that
 * end or delete the sessions whose grounds have gone.
 */

/**
 * The instants a session's grounds are judged at: now, the starts before which sessions have
 * ended, and the last use before which a staff session has ended (its idle limit).
 */
export interface GroundsAt {
  now: Date;
  startedAfter: Date;
  pendingStartedAfter: Date;
  usedAfter: Date;
}

/** An instant as an SQL value. */
export const instant = (at: Date): StatementPart => sqlPart`${at.toISOString()}::timestamptz`;

/**
 * The cause that has ended session `s` although nobody revoked it, or NULL while its grounds hold
 * at `grounds`: its age, its idleness (staff sessions only: a consumer's last use is NULL), the
 * admin session that launched it, the link it was opened with (decision records 020 and 032).
 */
export function endingCause(grounds: GroundsAt): StatementPart {
  const startedAfter = instant(grounds.startedAfter);
  return sqlPart`CASE
    WHEN s.has_restricted_access AND s.created_at <= ${instant(grounds.pendingStartedAfter)} THEN 'mfa-pending-expired'
    WHEN s.created_at <= ${startedAfter} THEN 'session-max-age'
    WHEN s.last_used_at <= ${instant(grounds.usedAfter)} THEN 'idle'
    WHEN s.launched_by_session_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM sessions p WHERE p.id = s.launched_by_session_id AND p.revoked_at IS NULL
        AND p.created_at > ${startedAfter}
    ) THEN 'launching-session-ended'
    WHEN s.identity_token_guid IS NOT NULL THEN (
      SELECT CASE WHEN it.revoked_at IS NOT NULL THEN 'link-revoked'
        WHEN it.expires_at <= ${instant(grounds.now)} THEN 'link-expired' END
      FROM identity_tokens it WHERE it.guid = s.identity_token_guid
    )
  END`;
}

/**
 * The end of the consumer's pending MFA sessions other than `keep`, the one a new lookup just
 * opened, so each lookup does not add a code and five tries of its own; only when `where` holds,
 * if given. Returns the ended sessions' `id`s.
 */
export function earlierPendingSessionsEnd(
  consumerId: number,
  keep: string,
  now: Date,
  where: StatementPart = fixedText('true'),
): StatementPart {
  return sqlPart`UPDATE sessions SET revoked_at = ${now.toISOString()}::timestamptz, revoked_reason = ${earlierPendingEndCause}::text
  WHERE consumer_id = ${consumerId}::bigint AND access_type = 'MfaPending' AND revoked_at IS NULL AND id <> ${keep}::uuid
    AND ${where}
  RETURNING id::text AS id`;
}

export const earlierPendingEndCause = 'replaced by a new lookup';

/** Ends the consumer's pending MFA sessions other than `keep` (`earlierPendingSessionsEnd`); answers their ids. */
export async function endEarlierPendingSessions(
  db: Database,
  consumerId: number,
  keep: string,
  now: Date,
): Promise<string[]> {
  const ended = await executePart<{ id: string }>(db, earlierPendingSessionsEnd(consumerId, keep, now));
  return ended.map((session) => session.id);
}

/** Which sessions to judge: these and the ones they launched, or those opened with a mailing's links. */
export type EndingCandidates = { sessionIds: string[] } | { mailing: string };

/** A session whose grounds had gone, as `endSessionsWithoutGrounds` ended it. */
export interface EndedSession {
  id: string;
  scope: Scope;
  tenantId: number | null;
  staffUserId: number | null;
  consumerId: number | null;
  /** What `endingCause` found. */
  cause: string;
  launchedBySessionId: string | null;
}

interface EndedSessionRow {
  id: string;
  scope: Scope;
  tenant_id: number | null;
  staff_user_id: string | null;
  consumer_id: string | null;
  cause: string;
  launched_by_session_id: string | null;
}

/**
 * Marks the candidates whose grounds have gone (`endingCause`) as revoked, with the cause: of
 * callers racing on a session, only the update that finds it unrevoked returns it. A mailing's
 * sessions are looked for among those young enough to be live.
 */
export async function endSessionsWithoutGrounds(
  db: Database,
  candidates: EndingCandidates,
  grounds: GroundsAt,
): Promise<EndedSession[]> {
  let among: StatementPart;
  if ('sessionIds' in candidates) {
    const ids = sqlPart`string_to_array(${candidates.sessionIds.join(',')}::text, ',')::uuid[]`;
    among = sqlPart`(s.id = ANY(${ids}) OR s.launched_by_session_id = ANY(${ids}))`;
  } else {
    among = sqlPart`s.created_at > ${instant(grounds.startedAfter)} AND s.identity_token_guid IN (
          SELECT guid FROM identity_tokens WHERE mailing_id = ${candidates.mailing}::text)`;
  }
  const rows = await executePart<EndedSessionRow>(
    db,
    sqlPart`WITH judged AS (
        SELECT s.id, ${endingCause(grounds)} AS cause
        FROM sessions s WHERE s.revoked_at IS NULL AND ${among}
      )
      UPDATE sessions SET revoked_at = ${instant(grounds.now)}, revoked_reason = judged.cause
      FROM judged
      WHERE sessions.id = judged.id AND judged.cause IS NOT NULL AND sessions.revoked_at IS NULL
      RETURNING sessions.id::text AS id, sessions.scope, sessions.tenant_id,
        sessions.staff_user_id::text AS staff_user_id, sessions.consumer_id::text AS consumer_id,
        judged.cause, sessions.launched_by_session_id::text AS launched_by_session_id`,
  );
  return rows.map((row) => ({
    id: row.id,
    scope: row.scope,
    tenantId: row.tenant_id,
    staffUserId: row.staff_user_id === null ? null : Number(row.staff_user_id),
    consumerId: row.consumer_id === null ? null : Number(row.consumer_id),
    cause: row.cause,
    launchedBySessionId: row.launched_by_session_id,
  }));
}

/**
 * Deletes sessions that ended before `cutoff`, `limit` at most: revoked, or with no refresh token
 * that outlives it (a session is only renewed through one); answers how many. Their refresh tokens
 * and codes go in the same statement: none can be written for an ended session.
 * `SKIP LOCKED`: instances pruning at the same time each take other rows, and a session a sign-in
 * is writing is left for the next run.
 */
export async function deleteSessionsEndedBefore(db: Database, cutoff: Date, limit: number): Promise<number> {
  const before = instant(cutoff);
  const deleted = await executePart<{ deleted: number }>(
    db,
    sqlPart`
  WITH ended AS (
    SELECT s.id FROM sessions s
    WHERE s.created_at < ${before}
      AND (s.revoked_at < ${before}
        OR NOT EXISTS (SELECT 1 FROM refresh_tokens t WHERE t.session_id = s.id AND t.expires_at >= ${before}))
    LIMIT ${limit}::integer
    FOR UPDATE OF s SKIP LOCKED
  ),
  tokens AS (DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM ended)),
  codes AS (DELETE FROM mfa_codes WHERE session_id IN (SELECT id FROM ended))
  DELETE FROM sessions WHERE id IN (SELECT id FROM ended) RETURNING 1 AS deleted`,
  );
  return deleted.length;
}
