import type { FastifyInstance } from 'fastify';
import { DatabaseAvailability, isDatabaseOutage } from './db/availability.ts';
import type { DatabaseHandle } from './db/index.ts';
import { refuse } from './refusals.ts';

/**
 * What the server does while a dependency cannot answer (docs/operations.md, "Faults"): while the
 * database is out of reach every API call but the probes is refused at once with 503 and
 * Retry-After, instead of waiting on it; the shared failure counters fall back to this instance's
 * memory (see `FallbackFailureCountStore`). Each change of either is one short log line.
 */

/** What `/api/ready` and the metrics read of the dependencies' state. */
export interface DependencyStatus {
  /** Why the database is out of reach, or undefined while it answers. */
  databaseUnavailable(): string | undefined;
  /** Why the failure counters are this instance's own rather than shared, or undefined. */
  sharedCountersUnavailable(): string | undefined;
}

/** How soon a refused caller may try again while the database is away: about one probe later. */
const databaseRetryAfterSeconds = 5;

/** The refusal of a call while the database cannot answer it. */
export function databaseUnavailableRefusal() {
  const refusal = refuse('databaseUnavailable');
  refusal.retryAfterSeconds = databaseRetryAfterSeconds;
  return refusal;
}

export const probePaths: ReadonlySet<string> = new Set(['/api/health', '/api/ready']);

/**
 * Watches the database through the requests' own failures and background work's, and refuses API
 * calls at once while it is away. Answers the function that background work reports its errors to.
 */
export function installDatabaseOutageGuard(
  app: FastifyInstance,
  database: DatabaseHandle,
): { availability: DatabaseAvailability; reportBackgroundError(error: unknown, what: string): void } {
  const availability = new DatabaseAvailability({
    probe: () => database.ping(),
    onChange: (reason) => {
      if (reason === undefined) app.log.warn('database answers again');
      else app.log.error({ reason }, 'database unreachable: API calls answer 503 until it is back');
    },
  });
  const reportBackgroundError = (error: unknown, what: string) => {
    if (isDatabaseOutage(error)) availability.noteFailure(error);
    else app.log.error({ err: error }, what);
  };
  // The driver's error holds its whole client: only its message is worth a line.
  database.onBackgroundError((error, what) => {
    availability.recheck(error).then((answers) => {
      if (answers) app.log.warn({ reason: error.message }, what);
    });
  });

  app.addHook('onRequest', (request, _reply, done) => {
    if (availability.unavailable === undefined || !request.url.startsWith('/api/')) {
      done();
      return;
    }
    const path = request.url.split('?')[0] ?? '';
    if (probePaths.has(path)) {
      done();
      return;
    }
    done(databaseUnavailableRefusal());
  });
  app.addHook('onError', (_request, _reply, error, done) => {
    availability.noteFailure(error);
    done();
  });
  app.addHook('onClose', async () => availability.stop());
  return { availability, reportBackgroundError };
}
