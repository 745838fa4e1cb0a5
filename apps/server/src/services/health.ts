import type { Database } from '../db/index.ts';
import { refuse } from '../refusals.ts';
import { appliedMigrationNames, shippedMigrationNames } from '../stores/migrations.ts';

/** Readiness: the database answers and has every migration this build ships. */

/** A database that does not answer within this time counts as unreachable. */
export const readinessTimeoutMs = 2000;

export const healthMessages = {
  databaseUnreachable: 'The database does not answer.',
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

/**
 * A check that refuses with 503 NotReady while the database does not answer or lacks a migration.
 * The shipped migrations are read from disk once, when the check is made.
 */
export function createReadinessCheck(db: Database): () => Promise<void> {
  const shipped = shippedMigrationNames();
  return async () => {
    let applied: Set<string>;
    try {
      applied = await withTimeout(appliedMigrationNames(db), readinessTimeoutMs);
    } catch {
      throw notReady(healthMessages.databaseUnreachable);
    }
    const pending = shipped.filter((name) => !applied.has(name));
    if (pending.length > 0) throw notReady(healthMessages.migrationsPending(pending));
  };
}
