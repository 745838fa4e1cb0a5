import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { type EndingCandidates, endSessionsWithoutGrounds, type GroundsAt } from '../stores/sessions.ts';
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
  | 'password-changed'
  | 'second-factors-reset';

/** The instants a session's grounds are judged at. */
export function endingInstants(now: Date, sessionMaxMinutes: number): GroundsAt {
  return {
    now,
    startedAfter: new Date(now.getTime() - sessionMaxMinutes * 60_000),
    pendingStartedAfter: new Date(now.getTime() - pendingSessionLifetimeMs),
  };
}

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
  const ended = await endSessionsWithoutGrounds(
    deps.db,
    candidates,
    endingInstants(deps.clock.now(), deps.sessionMaxMinutes),
  );
  await deps.audit.recordMany(
    ended.map((row) => ({
      event: `${row.scope}.session.end`,
      outcome: 'revoked' as const,
      actor: `${row.scope}:${row.staffUserId ?? row.consumerId ?? 'anonymous'}`,
      tenantId: row.tenantId,
      ip,
      detail: {
        sessionId: row.id,
        cause: row.cause,
        ...(row.launchedBySessionId === null ? {} : { launchedBySessionId: row.launchedBySessionId }),
      },
    })),
  );
  return ended.length;
}
