import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import {
  type EndingCandidates,
  endSessionsWithoutGrounds,
  type GroundsAt,
} from '../stores/session-endings.ts';
import type { AuditLog } from './audit.ts';

/** A session waiting for its second factor lives this long from its start, and is never renewed. */
const pendingSessionLifetimeMs = 10 * 60_000;

/**
 * How often at most a staff session in use records its use, and so how far behind its recorded
 * last use may be (decision record 032).
 */
export const lastUseStepMs = 60_000;

/**
 * How long past `STAFF_IDLE_MINUTES` the server lets an unused staff session live: the step its
 * last use is recorded to, and the step the web app reports a person's activity in, so the page's
 * own sign-out always comes first (decision record 032).
 */
export const idleGraceMs = 2 * lastUseStepMs;

/** The limits a session's grounds are judged by. */
export type SessionLimits = Pick<Config, 'sessionMaxMinutes' | 'staffIdleMinutes'>;

/** The instants a session's grounds are judged at. */
export function endingInstants(now: Date, limits: SessionLimits): GroundsAt {
  return {
    now,
    startedAfter: new Date(now.getTime() - limits.sessionMaxMinutes * 60_000),
    pendingStartedAfter: new Date(now.getTime() - pendingSessionLifetimeMs),
    usedAfter: new Date(now.getTime() - limits.staffIdleMinutes * 60_000 - idleGraceMs),
  };
}

export interface EndingDeps {
  db: Database;
  clock: Clock;
  audit: AuditLog;
  limits: SessionLimits;
}

/** The deps of `recordEndings` from a server's or an operator command's context. */
export function endingDepsOf(ctx: Omit<EndingDeps, 'limits'> & { config: SessionLimits }): EndingDeps {
  const { sessionMaxMinutes, staffIdleMinutes } = ctx.config;
  return { db: ctx.db, clock: ctx.clock, audit: ctx.audit, limits: { sessionMaxMinutes, staffIdleMinutes } };
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
    endingInstants(deps.clock.now(), deps.limits),
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
