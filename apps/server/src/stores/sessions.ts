import type { AccessType, Scope } from '@entry/domain';
import { and, eq, isNull, ne } from 'drizzle-orm';
import { type Database, oncePerHandle } from '../db/index.ts';
import { rowsInsert } from '../db/rows-insert.ts';
import { refreshTokens, sessions } from '../db/schema.ts';
import {
  dateOrNull,
  executePart,
  fixedText,
  rowPerCallBatchedByTurn,
  type StatementPart,
  sqlPart,
  withWrites,
  writesTogether,
} from '../db/sql.ts';
import { endingCause, type GroundsAt, instant } from './session-endings.ts';

/**
 * Sessions and their refresh tokens: writing, using, rotating and revoking them (the ends nobody
 * revoked, and pruning, are in session-endings.ts). The hot statements have fixed texts, prepared
 * once per connection; a session's rows are written in the statement of the sign-in that opens
 * it, with that sign-in's other writes.
 */

/** A session's row as the calls around it need it. */
export interface StoredSession {
  id: string;
  scope: Scope;
  tenantId: number | null;
  staffUserId: number | null;
  consumerId: number | null;
  identityTokenGuid: string | null;
  accessType: AccessType;
  hasRestrictedAccess: boolean;
  /** Every full session has one; a restricted (MFA pending) one has none. */
  roleId: number | null;
  launchedByAdminId: number | null;
  /** When a second factor was last used in this staff session; null when never. */
  secondFactorAt: Date | null;
}

/** A new session's row: a stored session and the admin session it was launched from, if any. */
export interface NewSessionRow extends StoredSession {
  launchedBySessionId: string | null;
  createdAt: Date;
  /** Its first use, its start, in a staff session; null in a consumer session, which has no idle limit. */
  lastUsedAt: Date | null;
}

/** The names a session's access token carries, read with the statement that wrote the session. */
export interface SessionNames {
  consumerName: string | null;
  staffName: string | null;
  launchedByName: string | null;
}

export type SessionView = StoredSession & SessionNames;

/** A refresh token as stored: only its hash. */
export interface StoredRefreshToken {
  hash: string;
  expiresAt: Date;
}

/**
 * The one insert of a refresh token, of the session `sessionId` (an SQL expression), once for each
 * row `from` finds (a `FROM ...`), or once when there is no `from`.
 */
export function refreshTokenInsert(
  token: StoredRefreshToken & { createdAt: Date },
  sessionId: StatementPart,
  from: StatementPart = fixedText(''),
): StatementPart {
  return sqlPart`INSERT INTO refresh_tokens (hash, session_id, created_at, expires_at)
    SELECT ${token.hash}::text, ${sessionId}, ${token.createdAt.toISOString()}::timestamptz, ${token.expiresAt.toISOString()}::timestamptz ${from}`;
}

/** A session's columns as a raw statement returns them (bigints as text: both drivers agree on text). */
interface SessionColumnsRow {
  id: string;
  scope: Scope;
  tenant_id: number | null;
  staff_user_id: string | null;
  consumer_id: string | null;
  identity_token_guid: string | null;
  access_type: AccessType;
  has_restricted_access: boolean;
  role_id: number | null;
  launched_by_admin_id: string | null;
  second_factor_at: Date | string | null;
}

interface SessionNamesRow {
  consumer_name: string | null;
  staff_name: string | null;
  launched_by_name: string | null;
}

type SessionViewRow = SessionColumnsRow & SessionNamesRow;

const idOf = (value: string | null): number | null => (value === null ? null : Number(value));

function toStored(row: SessionColumnsRow): StoredSession {
  return {
    id: row.id,
    scope: row.scope,
    tenantId: row.tenant_id,
    staffUserId: idOf(row.staff_user_id),
    consumerId: idOf(row.consumer_id),
    identityTokenGuid: row.identity_token_guid,
    accessType: row.access_type,
    hasRestrictedAccess: row.has_restricted_access,
    roleId: row.role_id,
    launchedByAdminId: idOf(row.launched_by_admin_id),
    secondFactorAt: dateOrNull(row.second_factor_at),
  };
}

const namesOf = (row: SessionNamesRow | undefined): SessionNames => ({
  consumerName: row?.consumer_name ?? null,
  staffName: row?.staff_name ?? null,
  launchedByName: row?.launched_by_name ?? null,
});

const toView = (row: SessionViewRow): SessionView => ({ ...toStored(row), ...namesOf(row) });

/** The columns of a session `s`, as `SessionColumnsRow`. */
const sessionColumnsText =
  's.id::text AS id, s.scope, s.tenant_id, s.staff_user_id::text AS staff_user_id, ' +
  's.consumer_id::text AS consumer_id, s.identity_token_guid::text AS identity_token_guid, ' +
  's.access_type, s.has_restricted_access, s.role_id, ' +
  's.launched_by_admin_id::text AS launched_by_admin_id, s.second_factor_at';
/** The columns of a session `s` and the names joined by `sessionNameJoins`, read with the write that needs them. */
const sessionViewColumns = `${sessionColumnsText}, c.name AS consumer_name, u.display_name AS staff_name, l.display_name AS launched_by_name`;
const sessionNameJoins =
  'LEFT JOIN consumers c ON c.id = s.consumer_id ' +
  'LEFT JOIN staff_users u ON u.id = s.staff_user_id ' +
  'LEFT JOIN staff_users l ON l.id = s.launched_by_admin_id';

const sessionInsert = rowsInsert(sessions, [
  'id',
  'scope',
  'tenantId',
  'staffUserId',
  'consumerId',
  'identityTokenGuid',
  'accessType',
  'hasRestrictedAccess',
  'roleId',
  'launchedByAdminId',
  'createdAt',
  'launchedBySessionId',
  'secondFactorAt',
  'lastUsedAt',
]);

/** The inserts of a new session and its first refresh token, for the statement of the sign-in that opens it. */
export function sessionInserts(row: NewSessionRow, refreshToken: StoredRefreshToken): StatementPart[] {
  return [
    sessionInsert([row]),
    refreshTokenInsert({ ...refreshToken, createdAt: row.createdAt }, sqlPart`${row.id}::uuid`),
  ];
}

/** Writes a new session and its first refresh token in one statement: they commit together. */
export async function writeSession(
  db: Database,
  row: NewSessionRow,
  refreshToken: StoredRefreshToken,
): Promise<void> {
  await executePart(db, writesTogether(sessionInserts(row, refreshToken)));
}

/**
 * `writeSession`, reading in the same round trip the names a new session's token carries. The
 * read cannot see the rows the writes add (one snapshot), so it looks the names up by the ids
 * written.
 */
export async function writeSessionReadingNames(
  db: Database,
  row: NewSessionRow,
  refreshToken: StoredRefreshToken,
): Promise<SessionNames> {
  const [read] = await executePart<SessionNamesRow>(
    db,
    withWrites(
      sessionInserts(row, refreshToken),
      sqlPart`SELECT (SELECT name FROM consumers WHERE id = ${row.consumerId}::bigint) AS consumer_name,
        (SELECT display_name FROM staff_users WHERE id = ${row.staffUserId}::bigint) AS staff_name,
        (SELECT display_name FROM staff_users WHERE id = ${row.launchedByAdminId}::bigint) AS launched_by_name`,
    ),
  );
  return namesOf(read);
}

/** A change of a session's access; `secondFactorAt`, when given, records a second factor used then. */
export interface AccessChange extends Pick<StoredSession, 'accessType' | 'hasRestrictedAccess' | 'roleId'> {
  secondFactorAt?: Date;
}

/** Changes an unrevoked session's access, replacing its refresh tokens by `refreshToken`; undefined when it is revoked. */
export async function changeAccess(
  db: Database,
  sessionId: string,
  change: AccessChange,
  refreshToken: StoredRefreshToken,
  now: Date,
): Promise<SessionView | undefined> {
  const secondFactorAt = change.secondFactorAt === undefined ? null : change.secondFactorAt.toISOString();
  const issued = refreshTokenInsert(
    { ...refreshToken, createdAt: now },
    fixedText('id'),
    fixedText('FROM s'),
  );
  const [row] = await executePart<SessionViewRow>(
    db,
    sqlPart`WITH s AS (
    UPDATE sessions SET access_type = ${change.accessType}::text,
      has_restricted_access = ${change.hasRestrictedAccess}::boolean, role_id = ${change.roleId}::integer,
      second_factor_at = COALESCE(${secondFactorAt}::timestamptz, second_factor_at)
    WHERE id = ${sessionId}::uuid AND revoked_at IS NULL
    RETURNING *
  ),
  earlier AS (DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM s)),
  issued AS (${issued})
  SELECT ${fixedText(sessionViewColumns)} FROM s ${fixedText(sessionNameJoins)}`,
  );
  return row === undefined ? undefined : toView(row);
}

/** What a rotation is given: the token's hash, its successor, and the instants it is judged at. */
interface RotationInput {
  scope: Scope;
  hash: string;
  successor: StoredRefreshToken;
  graceStart: Date;
  grounds: GroundsAt;
}

/**
 * The whole rotation of a refresh token, as one statement (one round trip, one commit), its text
 * fixed so PostgreSQL plans it once per connection. These are one caller's clauses, their names
 * ending in `index`, so that the rotations of one turn share a statement (decision record 018).
 * A session waiting for its second factor is never renewed.
 *
 * The token's state comes from the statement's snapshot; the rotating UPDATE re-checks
 * `rotated_at IS NULL` on the row as committed, so of racing callers exactly one wins the rotation
 * (and names its successor), and a loser (which saw the token unrotated) was rotated within the
 * grace period by definition: it gets a sibling, as does a caller within the grace period.
 * Racing callers never share a statement, which could rotate the row only once for both.
 */
function refreshClauses(input: RotationInput, index: number): StatementPart {
  const found = fixedText(`found${index}`);
  const now = input.grounds.now.toISOString();
  const issued = refreshTokenInsert(
    { ...input.successor, createdAt: input.grounds.now },
    fixedText('session_id'),
    sqlPart`FROM ${found} WHERE usable AND (unrotated OR in_grace)`,
  );
  return sqlPart`${found} AS (
    SELECT t.session_id,
      t.rotated_at IS NULL AS unrotated,
      t.rotated_at >= ${input.graceStart.toISOString()}::timestamptz AS in_grace,
      t.expires_at > ${now}::timestamptz AND s.revoked_at IS NULL AND s.scope = ${input.scope}::text
        AND NOT s.has_restricted_access AND (${endingCause(input.grounds)}) IS NULL AS usable
    FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
    WHERE t.hash = ${input.hash}::text
  ),
  ${fixedText(`rotated${index}`)} AS (
    UPDATE refresh_tokens SET rotated_at = ${now}::timestamptz, replaced_by = ${input.successor.hash}::text
    WHERE hash = ${input.hash}::text AND rotated_at IS NULL AND (SELECT usable FROM ${found})
  ),
  ${fixedText(`issued${index}`)} AS (${issued} RETURNING hash)`;
}

const refreshRow = (index: number) =>
  `found${index}.usable, EXISTS (SELECT 1 FROM issued${index}) AS issued, ${sessionViewColumns}
  FROM found${index} JOIN sessions s ON s.id = found${index}.session_id ${sessionNameJoins}`;

interface RefreshRow extends SessionViewRow {
  usable: boolean;
  issued: boolean;
}

/** Rotations of one turn share a statement: four at most, four statement texts. */
const rotationsOf = oncePerHandle((db) =>
  rowPerCallBatchedByTurn<RotationInput, RefreshRow>(db, {
    clausesOf: refreshClauses,
    rowOf: refreshRow,
    shapeOf: () => '',
    rowsOf: (input) => [input.hash],
    perStatement: 4,
  }),
);

/**
 * What a rotation found: the token's session, whether the token could be used, and whether a
 * successor was issued (a used token presented after the grace period gets none).
 */
export interface Rotation {
  session: SessionView;
  usable: boolean;
  issued: boolean;
}

/** Rotates the refresh token of `hash` to `successor`; undefined when no such token is stored. */
export async function rotateRefreshToken(db: Database, input: RotationInput): Promise<Rotation | undefined> {
  const row = await rotationsOf(db)(input);
  return row === undefined ? undefined : { session: toView(row), usable: row.usable, issued: row.issued };
}

/**
 * The session if it is live: not revoked, and its grounds holding (read on every authenticated
 * call, so revocation holds on every instance). The same statement records the use of a live
 * staff session, and of the admin session that launched it, when their last recorded use is
 * older than `recordedBefore`, so a session in use writes at most once per such step.
 */
export async function useLiveSession(
  db: Database,
  sessionId: string,
  grounds: GroundsAt,
  recordedBefore: Date,
): Promise<StoredSession | undefined> {
  const [row] = await executePart<SessionColumnsRow>(
    db,
    sqlPart`WITH live AS (
    SELECT ${fixedText(sessionColumnsText)}, s.launched_by_session_id AS launched_by FROM sessions s
    WHERE s.id = ${sessionId}::uuid AND s.revoked_at IS NULL AND (${endingCause(grounds)}) IS NULL
  ),
  used AS (
    UPDATE sessions SET last_used_at = ${instant(grounds.now)}
    WHERE id IN (SELECT id::uuid FROM live UNION ALL SELECT launched_by FROM live)
      AND revoked_at IS NULL AND last_used_at < ${instant(recordedBefore)}
      AND last_used_at > ${instant(grounds.usedAfter)}
  )
  SELECT * FROM live`,
  );
  return row === undefined ? undefined : toStored(row);
}

export async function revokeSession(
  db: Database,
  sessionId: string,
  reason: string,
  now: Date,
): Promise<void> {
  await db
    .update(sessions)
    .set({ revokedAt: now, revokedReason: reason })
    .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
}

/** Ends a staff user's unrevoked sessions but `keptSessionId`; answers the ids of those it ended. */
export async function revokeStaffUserSessions(
  db: Database,
  staffUserId: number,
  ending: { reason: string; now: Date; keptSessionId: string | undefined },
): Promise<string[]> {
  const ended = await db
    .update(sessions)
    .set({ revokedAt: ending.now, revokedReason: ending.reason })
    .where(
      and(
        eq(sessions.staffUserId, staffUserId),
        isNull(sessions.revokedAt),
        ending.keptSessionId === undefined ? undefined : ne(sessions.id, ending.keptSessionId),
      ),
    )
    .returning({ id: sessions.id });
  return ended.map((session) => session.id);
}

/** The session a refresh token (by its hash) belongs to, and its scope. */
export async function findSessionOfRefreshToken(
  db: Database,
  hash: string,
): Promise<{ sessionId: string; scope: Scope } | undefined> {
  const [found] = await db
    .select({ sessionId: sessions.id, scope: sessions.scope })
    .from(refreshTokens)
    .innerJoin(sessions, eq(refreshTokens.sessionId, sessions.id))
    .where(eq(refreshTokens.hash, hash));
  return found;
}
