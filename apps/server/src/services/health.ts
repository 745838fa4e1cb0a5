import type { Database } from '../db/index.ts';
import type { DependencyStatus } from '../dependency-outages.ts';
import { refuse } from '../refusals.ts';
import { appliedMigrationNames, shippedMigrationNames } from '../stores/migrations.ts';

/**
 * Readiness: the database answers and has every migration this build ships. Shared failure counts
 * that fell back to memory leave the instance ready but degraded: draining every instance because
 * Redis is away would turn a partial fault into an outage.
 */

/** A database that does not answer within this time counts as unreachable. */
const readinessTimeoutMs = 2000;

const healthMessages = {
  databaseUnreachable: 'The database does not answer.',
  sharedCountersAway: (reason: string) =>
    `Failure counts are kept in this instance's memory: Redis does not answer (${reason}).`,
  migrationsPending: (names: string[]) => `The database lacks the migrations ${names.join(', ')}.`,
} as const;

const notReady = (reason: string) => refuse('notReady', { errors: [{ field: 'database', message: reason }] });

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export type Readiness = { status: 'ready' } | { status: 'degraded'; reasons: string[] };

/**
 * A check that refuses with 503 NotReady while the database does not answer or lacks a migration.
 * The shipped migrations are read from disk once, when the check is made.
 */
export function createReadinessCheck(db: Database, dependencies: DependencyStatus): () => Promise<Readiness> {
  const shipped = shippedMigrationNames();
  return async () => {
    if (dependencies.databaseUnavailable() !== undefined) throw notReady(healthMessages.databaseUnreachable);
    let applied: Set<string>;
    try {
      applied = await withTimeout(appliedMigrationNames(db), readinessTimeoutMs);
    } catch {
      throw notReady(healthMessages.databaseUnreachable);
    }
    const pending = shipped.filter((name) => !applied.has(name));
    if (pending.length > 0) throw notReady(healthMessages.migrationsPending(pending));
    const countersAway = dependencies.sharedCountersUnavailable();
    return countersAway === undefined
      ? { status: 'ready' }
      : { status: 'degraded', reasons: [healthMessages.sharedCountersAway(countersAway)] };
  };
}
