import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { isDatabaseUnreachable } from './availability.ts';

/** PostgreSQL did not answer at start, or refused the connection for good: one line to act on. */
export class DatabaseStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseStartError';
  }
}

/** `host:port` of a connection string, never its user or password. */
function postgresAddress(connectionString: string): string {
  const url = new URL(connectionString);
  return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
}

const retryIntervalMs = 1000;
const connectTimeoutMs = 2000;

/**
 * Asks PostgreSQL `SELECT 1` on a connection of its own, opened and closed for it, bounded by
 * `timeoutMs`: whether it answers now, whatever the state of a pool's connections.
 */
export async function askPostgres(connectionString: string, timeoutMs: number): Promise<void> {
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  // A connection lost after it failed must not end the process as an unhandled error event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Waits until PostgreSQL takes a connection, for at most `waitSeconds`, saying once that it waits:
 * the database of a deployment often starts beside the server, or after it.
 */
export async function waitForPostgres(
  connectionString: string,
  waitSeconds: number,
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const address = postgresAddress(connectionString);
  const deadline = Date.now() + waitSeconds * 1000;
  let waiting = false;
  for (;;) {
    try {
      await askPostgres(connectionString, connectTimeoutMs);
      if (waiting) say(`PostgreSQL at ${address} answers`);
      return;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!isDatabaseUnreachable(error)) {
        throw new DatabaseStartError(`PostgreSQL at ${address} refused the connection: ${reason}`);
      }
      if (Date.now() >= deadline) {
        throw new DatabaseStartError(
          `PostgreSQL at ${address} did not answer within ${waitSeconds} seconds (${reason || 'no answer'}); set DATABASE_WAIT_SECONDS to wait longer.`,
        );
      }
      if (!waiting) say(`waiting for PostgreSQL at ${address} ...`);
      waiting = true;
      await sleep(retryIntervalMs);
    }
  }
}
