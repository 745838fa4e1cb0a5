import type { AccessType } from '@entry/domain';
import { and, eq, isNull } from 'drizzle-orm';
import { type Database, executeStatement, oncePerHandle, statement } from '../db/index.ts';
import { refreshTokens, type Scope, sessions } from '../db/schema.ts';
import { executePart, noRead, rowPerCallInTurns, type StatementPart, withWrites } from '../db/sql.ts';

/**
 * Sessions and their refresh tokens: every statement on `sessions` and `refresh_tokens`. The hot
 * ones have fixed texts, prepared once per connection; a session's rows are written in the
 * statement of the sign-in that opens it, with that sign-in's other writes.
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
}

/** A new session's row: a stored session and the admin session it was launched from, if any. */
export interface NewSessionRow extends StoredSession {
  launchedBySessionId: string | null;
  createdAt: Date;
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

/** The instants a session's grounds are judged at: now, and the starts before which sessions have ended. */
export interface GroundsAt {
  now: Date;
  startedAfter: Date;
  pendingStartedAfter: Date;
}

/**
 * The cause that has ended session `s` although nobody revoked it, or NULL while its grounds hold:
 * its age, the admin session that launched it, the link it was opened with (decision record 020).
 * The arguments are SQL expressions of the three instants of `GroundsAt`.
 */
export function endingCause(now: string, startedAfter: string, pendingStartedAfter: string): string {
  return `CASE
    WHEN s.has_restricted_access AND s.created_at <= ${pendingStartedAfter}::timestamptz THEN 'mfa-pending-expired'
    WHEN s.created_at <= ${startedAfter}::timestamptz THEN 'session-max-age'
    WHEN s.launched_by_session_id IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM sessions p WHERE p.id = s.launched_by_session_id AND p.revoked_at IS NULL
        AND p.created_at > ${startedAfter}::timestamptz
    ) THEN 'launching-session-ended'
    WHEN s.identity_token_guid IS NOT NULL THEN (
      SELECT CASE WHEN it.revoked_at IS NOT NULL THEN 'link-revoked'
        WHEN it.expires_at <= ${now}::timestamptz THEN 'link-expired' END
      FROM identity_tokens it WHERE it.guid = s.identity_token_guid
    )
  END`;
}

/**
 * The one insert of a refresh token: SQL expressions of its four columns, and what follows them
 * (`FROM ...` to insert only where a row is found, or nothing for a single row).
 */
export function refreshTokenInsert(
  columns: { hash: string; sessionId: string; createdAt: string; expiresAt: string },
  from = '',
): string {
  return (
    'INSERT INTO refresh_tokens (hash, session_id, created_at, expires_at) ' +
    `SELECT ${columns.hash}, ${columns.sessionId}, ${columns.createdAt}, ${columns.expiresAt}${from}`
  );
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
  's.launched_by_admin_id::text AS launched_by_admin_id';
/** The columns of a session `s` and the names joined by `sessionNameJoins`, read with the write that needs them. */
const sessionViewColumns = `${sessionColumnsText}, c.name AS consumer_name, u.display_name AS staff_name, l.display_name AS launched_by_name`;
const sessionNameJoins =
  'LEFT JOIN consumers c ON c.id = s.consumer_id ' +
  'LEFT JOIN staff_users u ON u.id = s.staff_user_id ' +
  'LEFT JOIN staff_users l ON l.id = s.launched_by_admin_id';

const sessionInsertText =
  'INSERT INTO sessions (id, scope, tenant_id, staff_user_id, consumer_id, identity_token_guid, access_type, ' +
  'has_restricted_access, role_id, launched_by_admin_id, created_at, launched_by_session_id) VALUES ($1::uuid, ' +
  '$2::text, $3::integer, $4::bigint, $5::bigint, $6::uuid, $7::text, $8::boolean, $9::integer, $10::bigint, ' +
  '$11::timestamptz, $12::uuid)';
const firstRefreshTokenText = refreshTokenInsert({
  hash: '$1::text',
  sessionId: '$2::uuid',
  createdAt: '$3::timestamptz',
  expiresAt: '$4::timestamptz',
});

/** The inserts of a new session and its first refresh token, for the statement of the sign-in that opens it. */
export function sessionInserts(row: NewSessionRow, refreshToken: StoredRefreshToken): StatementPart[] {
  const createdAt = row.createdAt.toISOString();
  return [
    {
      text: sessionInsertText,
      values: [
        row.id,
        row.scope,
        row.tenantId,
        row.staffUserId,
        row.consumerId,
        row.identityTokenGuid,
        row.accessType,
        row.hasRestrictedAccess,
        row.roleId,
        row.launchedByAdminId,
        createdAt,
        row.launchedBySessionId,
      ],
    },
    {
      text: firstRefreshTokenText,
      values: [refreshToken.hash, row.id, createdAt, refreshToken.expiresAt.toISOString()],
    },
  ];
}

/** The names a new session's access token carries: $1 its consumer, $2 its staff user, $3 the launching admin. */
const namesText =
  'SELECT (SELECT name FROM consumers WHERE id = $1::bigint) AS consumer_name, ' +
  '(SELECT display_name FROM staff_users WHERE id = $2::bigint) AS staff_name, ' +
  '(SELECT display_name FROM staff_users WHERE id = $3::bigint) AS launched_by_name';

/** Runs a sign-in's writes (a session's inserts among them) in one statement: they commit together. */
export async function writeAll(db: Database, writes: readonly StatementPart[]): Promise<void> {
  await executePart(db, withWrites(writes, noRead));
}

/**
 * `writeAll`, reading in the same round trip the names a new session's token carries. The read
 * cannot see the rows the writes add (one snapshot), so it looks the names up by the ids written.
 */
export async function writeAllReadingNames(
  db: Database,
  writes: readonly StatementPart[],
  session: Pick<StoredSession, 'consumerId' | 'staffUserId' | 'launchedByAdminId'>,
): Promise<SessionNames> {
  const [read] = await executePart<SessionNamesRow>(
    db,
    withWrites(writes, {
      text: namesText,
      values: [session.consumerId, session.staffUserId, session.launchedByAdminId],
    }),
  );
  return namesOf(read);
}

/**
 * A session's change of access (MFA completed), the end of its earlier refresh tokens and the new
 * one, as one statement with a fixed text: $1 the access type, $2 restricted or not, $3 the role,
 * $4 the session, $5 the new refresh token's hash, $6 now, $7 its expiry.
 */
const upgradeStatement = statement(
  `WITH s AS (
    UPDATE sessions SET access_type = $1::text, has_restricted_access = $2::boolean, role_id = $3::integer
    WHERE id = $4::uuid AND revoked_at IS NULL
    RETURNING *
  ),
  earlier AS (DELETE FROM refresh_tokens WHERE session_id IN (SELECT id FROM s)),
  issued AS (${refreshTokenInsert({ hash: '$5::text', sessionId: 'id', createdAt: '$6::timestamptz', expiresAt: '$7::timestamptz' }, ' FROM s')})
  SELECT ${sessionViewColumns} FROM s ${sessionNameJoins}`,
);

/** Changes an unrevoked session's access, replacing its refresh tokens by `refreshToken`; undefined when it is revoked. */
export async function changeAccess(
  db: Database,
  sessionId: string,
  change: Pick<StoredSession, 'accessType' | 'hasRestrictedAccess' | 'roleId'>,
  refreshToken: StoredRefreshToken,
  now: Date,
): Promise<SessionView | undefined> {
  const [row] = await executeStatement<SessionViewRow>(db, upgradeStatement, [
    change.accessType,
    change.hasRestrictedAccess,
    change.roleId,
    sessionId,
    refreshToken.hash,
    now.toISOString(),
    refreshToken.expiresAt.toISOString(),
  ]);
  return row === undefined ? undefined : toView(row);
}

/**
 * The whole rotation of a refresh token, as one statement (one round trip, one commit), its text
 * fixed so PostgreSQL plans it once per connection. These are one caller's clauses, their names
 * ending in `index`, so that the rotations of one turn share a statement (decision record 018).
 * $1 the start of the grace period, $2 now, $3 the scope, $4 the token's hash, $5 the successor's
 * hash, $6 the successor's expiry, $7 and $8 the starts before which a session and a pending
 * session have ended. A session waiting for its second factor is never renewed.
 *
 * The token's state comes from the statement's snapshot; the rotating UPDATE re-checks
 * `rotated_at IS NULL` on the row as committed, so of racing callers exactly one wins the rotation
 * (and names its successor), and a loser (which saw the token unrotated) was rotated within the
 * grace period by definition: it gets a sibling, as does a caller within the grace period.
 * Racing callers never share a statement, which could rotate the row only once for both.
 */
const refreshClauses = (index: number) =>
  `found${index} AS (
    SELECT t.session_id,
      t.rotated_at IS NULL AS unrotated,
      t.rotated_at >= $1::timestamptz AS in_grace,
      t.expires_at > $2::timestamptz AND s.revoked_at IS NULL AND s.scope = $3
        AND NOT s.has_restricted_access AND (${endingCause('$2', '$7', '$8')}) IS NULL AS usable
    FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
    WHERE t.hash = $4::text
  ),
  rotated${index} AS (
    UPDATE refresh_tokens SET rotated_at = $2::timestamptz, replaced_by = $5::text
    WHERE hash = $4::text AND rotated_at IS NULL AND (SELECT usable FROM found${index})
  ),
  issued${index} AS (
    ${refreshTokenInsert(
      {
        hash: '$5::text',
        sessionId: 'session_id',
        createdAt: '$2::timestamptz',
        expiresAt: '$6::timestamptz',
      },
      ` FROM found${index} WHERE usable AND (unrotated OR in_grace)`,
    )}
    RETURNING hash
  )`;

const refreshRow = (index: number) =>
  `found${index}.usable, EXISTS (SELECT 1 FROM issued${index}) AS issued, ${sessionViewColumns}
  FROM found${index} JOIN sessions s ON s.id = found${index}.session_id ${sessionNameJoins}`;

interface RefreshRow extends SessionViewRow {
  usable: boolean;
  issued: boolean;
}

/** Rotations of one turn share a statement: four at most, four statement texts. */
const rotationsOf = oncePerHandle((db) =>
  rowPerCallInTurns<{ hash: string; values: unknown[] }, RefreshRow>(db, {
    clausesOf: (call, index) => ({ text: refreshClauses(index), values: call.values }),
    rowOf: refreshRow,
    shapeOf: () => '',
    rowsOf: (call) => [call.hash],
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
export async function rotateRefreshToken(
  db: Database,
  input: { scope: Scope; hash: string; successor: StoredRefreshToken; graceStart: Date; grounds: GroundsAt },
): Promise<Rotation | undefined> {
  const { grounds } = input;
  const row = await rotationsOf(db)({
    hash: input.hash,
    values: [
      input.graceStart.toISOString(),
      grounds.now.toISOString(),
      input.scope,
      input.hash,
      input.successor.hash,
      input.successor.expiresAt.toISOString(),
      grounds.startedAfter.toISOString(),
      grounds.pendingStartedAfter.toISOString(),
    ],
  });
  return row === undefined ? undefined : { session: toView(row), usable: row.usable, issued: row.issued };
}

/**
 * A session an authenticated call may use: not revoked, and its grounds holding. $1 the session,
 * $2 now, $3 and $4 the starts before which a session and a pending session have ended.
 */
const liveSessionStatement = statement(
  `SELECT ${sessionColumnsText} FROM sessions s
  WHERE s.id = $1::uuid AND s.revoked_at IS NULL AND (${endingCause('$2', '$3', '$4')}) IS NULL`,
);

/** The session if it is live (read on every authenticated call, so revocation holds on every instance). */
export async function findLiveSession(
  db: Database,
  sessionId: string,
  grounds: GroundsAt,
): Promise<StoredSession | undefined> {
  const [row] = await executeStatement<SessionColumnsRow>(db, liveSessionStatement, [
    sessionId,
    grounds.now.toISOString(),
    grounds.startedAfter.toISOString(),
    grounds.pendingStartedAfter.toISOString(),
  ]);
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

/** $1 the consumer, $2 the session to keep, $3 now. A fixed text: every lookup sign-in runs it. */
const endEarlierText = `UPDATE sessions SET revoked_at = $3::timestamptz, revoked_reason = 'replaced by a new lookup'
  WHERE consumer_id = $1::bigint AND access_type = 'MfaPending' AND revoked_at IS NULL AND id <> $2::uuid
  RETURNING id`;

/**
 * Ends the consumer's pending MFA sessions other than `keep`, the one a new lookup just opened, so
 * each lookup does not add a code and five tries of its own; answers the ids of those it ended.
 */
export async function endEarlierPendingSessions(
  db: Database,
  consumerId: number,
  keep: string,
  now: Date,
): Promise<string[]> {
  const ended = await executePart<{ id: string }>(db, {
    text: endEarlierText,
    values: [consumerId, keep, now.toISOString()],
  });
  return ended.map((session) => session.id);
}
