import { randomUUID } from 'node:crypto';
import type { AccessType, AuthTokenResult, Scope } from '@entry/domain';
import type { Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { refuse } from '../refusals.ts';
import type { RowWrites } from '../stores/row-writes.ts';
import {
  type AccessChange,
  changeAccess,
  findSessionOfRefreshToken,
  type NewSessionRow,
  revokeSession,
  rotateRefreshToken,
  type SessionNames,
  type StoredRefreshToken,
  type StoredSession,
  useLiveSession,
  writeSession,
  writeSessionReadingNames,
} from '../stores/sessions.ts';
import { createAccessTokens, subjectOf } from './access-tokens.ts';
import type { AuditLog } from './audit.ts';
import type { SigningKeys } from './keys.ts';
import { hashToken, randomToken } from './secret-tokens.ts';
import { endingDepsOf, endingInstants, lastUseStepMs, recordEndings } from './session-endings.ts';

/** A rotated refresh token presented again this soon gets a sibling pair (tabs refreshing together). */
const refreshGraceMs = 10_000;

export interface NewSession {
  scope: Scope;
  tenantId: number | null;
  /** The admin or customer user signing in. */
  staffUserId?: number | null;
  /** The consumer signing in, and the identity token they came with, if any. */
  consumerId?: number | null;
  identityTokenGuid?: string | null;
  accessType: AccessType;
  hasRestrictedAccess: boolean;
  /** Every full token has one; a restricted (MFA pending) token has none. */
  roleId: number | null;
  /** The admin who launched this customer session (accessType `Launched`). */
  launchedByAdminId?: number | null;
  /** The admin session it was launched from: this session lives only while that one does. */
  launchedBySessionId?: string | null;
  /** A sign-in that was itself a second factor (a passkey with user verification) records it. */
  secondFactorAt?: Date | null;
}

/** Who a verified, unrevoked access token belongs to. */
export interface SessionPrincipal extends Omit<StoredSession, 'id'> {
  sessionId: string;
}

export interface RequireSessionOptions {
  /**
   * The restricted access types a call lets through besides full tokens: the consumer MFA calls
   * `MfaPending`, a staff second step `SecondFactorPending`, an enrolment `SecondFactorEnrolment`.
   */
  allowRestricted?: readonly AccessType[];
}

interface OpenOptions {
  /** The names the access token carries, where the caller has read them; else they are read with the writes. */
  names?: SessionNames;
}

/**
 * A session whose id and first refresh token are chosen before the statement that writes it, for
 * a sign-in whose own statement writes the session with its other writes (a verification, a
 * direct link): its `rows` go into that statement, and `firstPair` signs once it has committed.
 */
export interface ReservedSession {
  id: string;
  createdAt: Date;
  refreshToken: StoredRefreshToken;
  rows(session: NewSession): RowWrites;
  firstPair(session: NewSession, names: SessionNames): Promise<AuthTokenResult>;
}

/** The credentials a call carries that can name its session. */
interface SessionCredentials {
  bearer: string | undefined;
  refreshToken: string | undefined;
}

export interface SessionService {
  /** Opens a session, writing `alongside` in its statement, and answers its first token pair. */
  open(session: NewSession, options?: OpenOptions): Promise<AuthTokenResult>;
  reserve(): ReservedSession;
  /**
   * Changes a session's access (e.g. MFA completed: restricted -> full) and issues a new pair;
   * the session's earlier refresh tokens stop working.
   */
  upgradeSession(sessionId: string, change: AccessChange): Promise<AuthTokenResult>;
  /** Rotates a refresh token (docs/rules.md#sessions: grace sibling pair, reuse revokes the session). */
  refresh(scope: Scope, refreshToken: string, ip: string): Promise<AuthTokenResult>;
  revokeSession(sessionId: string, reason: string): Promise<void>;
  /** The session a sign-out call names: its bearer token (even expired) or its refresh token. */
  identify(credentials: SessionCredentials, scope: Scope): Promise<string | undefined>;
  /** The session `identify` names, while it is live. */
  identifyLive(credentials: SessionCredentials, scope: Scope): Promise<StoredSession | undefined>;
  /** Verifies a bearer token (signature, expiry, scope) and that its session is live. */
  authenticate(
    bearer: string | undefined,
    scope: Scope | readonly Scope[],
    options: RequireSessionOptions,
    ip: string,
  ): Promise<SessionPrincipal>;
}

/** A new session's row as `NewSession` describes it, its optional references null. */
function rowOf(id: string, createdAt: Date, input: NewSession): NewSessionRow {
  return {
    id,
    scope: input.scope,
    tenantId: input.tenantId,
    staffUserId: input.staffUserId ?? null,
    consumerId: input.consumerId ?? null,
    identityTokenGuid: input.identityTokenGuid ?? null,
    accessType: input.accessType,
    hasRestrictedAccess: input.hasRestrictedAccess,
    roleId: input.roleId,
    launchedByAdminId: input.launchedByAdminId ?? null,
    launchedBySessionId: input.launchedBySessionId ?? null,
    secondFactorAt: input.secondFactorAt ?? null,
    createdAt,
    lastUsedAt: input.scope === 'consumer' ? null : createdAt,
  };
}

export function createSessionService(deps: {
  db: Database;
  config: Pick<
    Config,
    'accessTokenMinutes' | 'refreshTokenMinutes' | 'sessionMaxMinutes' | 'staffIdleMinutes' | 'clock'
  >;
  keys: SigningKeys;
  audit: AuditLog;
}): SessionService {
  const { db, config, audit } = deps;
  const clock = config.clock;
  const tokens = createAccessTokens(config, deps.keys);
  const endingDeps = endingDepsOf({ db, clock, audit, config });
  const { limits } = endingDeps;
  /** The session while it is live, its use recorded (decision record 032). */
  const liveSession = (sessionId: string) => {
    const now = clock.now();
    return useLiveSession(
      db,
      sessionId,
      endingInstants(now, limits),
      new Date(now.getTime() - lastUseStepMs),
    );
  };

  const newRefreshToken = (now: Date) => {
    const token = randomToken();
    const stored: StoredRefreshToken = {
      hash: hashToken(token),
      expiresAt: new Date(now.getTime() + config.refreshTokenMinutes * 60_000),
    };
    return { token, stored };
  };

  /** Ends the session, and with it the sessions it launched (recorded with their cause). */
  async function revoke(sessionId: string, reason: string): Promise<void> {
    await revokeSession(db, sessionId, reason, clock.now());
    await recordEndings(endingDeps, { sessionIds: [sessionId] });
  }

  const service: SessionService = {
    async open(session, options = {}) {
      const reserved = service.reserve();
      const row = rowOf(reserved.id, reserved.createdAt, session);
      if (options.names !== undefined) {
        await writeSession(db, row, reserved.refreshToken);
        return reserved.firstPair(session, options.names);
      }
      return reserved.firstPair(session, await writeSessionReadingNames(db, row, reserved.refreshToken));
    },

    reserve() {
      const id = randomUUID();
      const createdAt = clock.now();
      const refresh = newRefreshToken(createdAt);
      return {
        id,
        createdAt,
        refreshToken: refresh.stored,
        rows: (session) => ({
          sessions: [{ row: rowOf(id, createdAt, session), refreshToken: refresh.stored }],
        }),
        firstPair: (session, names) =>
          tokens.pairFor({ ...rowOf(id, createdAt, session), ...names }, refresh.token),
      };
    },

    async upgradeSession(sessionId, change) {
      const now = clock.now();
      const refresh = newRefreshToken(now);
      const view = await changeAccess(db, sessionId, change, refresh.stored, now);
      if (view === undefined) throw refuse('notAuthorized');
      return tokens.pairFor(view, refresh.token);
    },

    async refresh(scope, refreshToken, ip) {
      const hash = hashToken(refreshToken);
      const now = clock.now();
      const successor = newRefreshToken(now);
      const rotation = await rotateRefreshToken(db, {
        scope,
        hash,
        successor: successor.stored,
        graceStart: new Date(now.getTime() - refreshGraceMs),
        grounds: endingInstants(now, limits),
      });
      if (rotation === undefined) throw refuse('notAuthorized');
      const { session } = rotation;
      if (!rotation.usable) {
        await recordEndings(endingDeps, { sessionIds: [session.id] }, ip);
        throw refuse('notAuthorized');
      }
      if (rotation.issued) return tokens.pairFor(session, successor.token);
      await revoke(session.id, 'refresh-token-reuse');
      await audit.record({
        event: `${scope}.refresh.reuse`,
        outcome: 'revoked',
        actor: subjectOf(session),
        tenantId: session.tenantId,
        ip,
        detail: { sessionId: session.id },
      });
      throw refuse('notAuthorized');
    },

    revokeSession: revoke,

    async identify(credentials, scope) {
      if (credentials.bearer !== undefined) {
        const claims = await tokens.verify(credentials.bearer, true);
        if (claims !== undefined && claims.scope === scope) return claims.sid;
      }
      if (credentials.refreshToken === undefined) return undefined;
      const found = await findSessionOfRefreshToken(db, hashToken(credentials.refreshToken));
      return found?.scope === scope ? found.sessionId : undefined;
    },

    async identifyLive(credentials, scope) {
      const sessionId = await service.identify(credentials, scope);
      return sessionId === undefined ? undefined : liveSession(sessionId);
    },

    async authenticate(bearer, scope, options, ip) {
      if (bearer === undefined) throw refuse('notAuthorized');
      const claims = await tokens.verify(bearer, false);
      if (claims === undefined) throw refuse('notAuthorized');
      // Revocation must hold on every instance at once, so the session row is read on each call;
      // the read records the use that keeps a staff session from its idle limit (decision record 032).
      const session = await liveSession(claims.sid);
      if (session === undefined) {
        await recordEndings(endingDeps, { sessionIds: [claims.sid] }, ip);
        throw refuse('notAuthorized');
      }
      const scopes: readonly Scope[] = typeof scope === 'string' ? [scope] : scope;
      if (!scopes.includes(claims.scope) || session.scope !== claims.scope) throw refuse('notPermitted');
      if (claims.hasRestrictedAccess && !(options.allowRestricted ?? []).includes(claims.accessType)) {
        throw refuse('notPermitted');
      }
      const { id, ...rest } = session;
      return {
        ...rest,
        sessionId: id,
        hasRestrictedAccess: claims.hasRestrictedAccess,
        accessType: claims.accessType,
      };
    },
  };
  return service;
}
