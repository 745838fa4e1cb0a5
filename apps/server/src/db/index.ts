import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { type Config, databaseDefaults } from '../config.ts';
import { type ControlCommandHandler, lockDataDir } from './data-dir-lock.ts';
import { type Database, runStatementsWith } from './database.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';
import { migratePglite, migratePostgres, verifyPostgresSchema } from './migrate.ts';
import { askPostgres, waitForPostgres } from './postgres-wait.ts';
import * as schema from './schema.ts';
import { CallerContextPool, StatementBoundClient, withStatementBound } from './statement-bounds.ts';

export type { Database } from './database.ts';

type BackgroundErrorListener = (error: Error, what: string) => void;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /**
   * Where errors outside any request go (the server's logger), stderr until set: a lost idle
   * PostgreSQL connection, a failed vacuum of the embedded database; `what` says which.
   */
  onBackgroundError(listener: BackgroundErrorListener): void;
  /** Asks the database something trivial; rejects while it cannot answer. */
  ping(): Promise<void>;
  /**
   * Runs `work` (a sign-in, refresh or lookup) with each PostgreSQL statement it sends bounded by
   * DATABASE_SIGN_IN_TIMEOUT_MS instead of the longer statement timeout; PGlite has no such bound.
   */
  withSignInBound<T>(work: () => T): T;
  /** PGlite only: its whole data directory as a gzipped tarball, for `backup` (db/embedded-backup.ts). */
  dumpDataDir?(): Promise<Uint8Array>;
  /** Statements waiting: for a pooled connection on PostgreSQL, for the thread on PGlite. */
  waiting(): number;
  /**
   * PGlite only: operator commands sent to the data directory's socket while this process holds
   * it are run by `handler` (with PostgreSQL the CLI opens the database itself).
   */
  serveControlCommands?(handler: ControlCommandHandler): void;
  close(): Promise<void>;
}

/**
 * PGlite's buffer cache lives in the server's own memory and its default is mostly held from the
 * start; the operating system still caches the data files underneath a smaller one.
 */
export const pgliteSharedBuffers = '16MB';

/**
 * Bounded waits on PostgreSQL, so a frozen or unreachable database fails requests instead of
 * holding them: a pooled connection must be had within this, and a statement answered within
 * DATABASE_STATEMENT_TIMEOUT_MS (the server's own bound) plus the grace (the client's, for a
 * server too frozen to cancel anything), or within DATABASE_SIGN_IN_TIMEOUT_MS on a sign-in.
 */
const postgresTimeouts = { acquireMs: 3000, answerGraceMs: 2000, probeMs: 1000 } as const;

const reportToStderr: BackgroundErrorListener = (error, what) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: what, error: error.message })}\n`);
};

type DatabaseConfig = Pick<Config, 'databaseUrl' | 'dataDir'> &
  Partial<Pick<Config, 'databaseWaitSeconds' | 'databaseStatementTimeoutMs' | 'databaseSignInTimeoutMs'>>;

/**
 * What opening does to PostgreSQL's schema: `apply` the pending migrations, or `verify` that it is
 * exactly this build's and refuse it otherwise. PGlite, one process's own, always applies them.
 */
export type SchemaOnOpen = 'apply' | 'verify';

/** `serve` and the operator commands migrate PostgreSQL only when MIGRATE=1 (decision record 033). */
export function schemaOnOpen(config: Pick<Config, 'migrate'>): SchemaOnOpen {
  return config.migrate ? 'apply' : 'verify';
}

/** Where the embedded database keeps its files inside DATA_DIR. */
export const embeddedDatabaseDir = (dataDir: string) => path.join(dataDir, 'pglite');

/**
 * Opens PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite in DATA_DIR/pglite
 * (locked against a second process, and vacuumed by this process: see embedded-vacuum.ts), and
 * applies the pending migrations, or on PostgreSQL with `verify` refuses a schema not this build's.
 */
export async function openDatabase(
  config: DatabaseConfig,
  schema: SchemaOnOpen = 'apply',
): Promise<DatabaseHandle> {
  return (await openAndMigrate(config, schema)).handle;
}

/** `migrate`: applies the pending migrations and returns their names. */
export async function migrateDatabase(config: DatabaseConfig): Promise<string[]> {
  if (config.databaseUrl !== undefined) {
    await waitForPostgres(config.databaseUrl, config.databaseWaitSeconds ?? databaseDefaults.waitSeconds);
    return migratePostgres(config.databaseUrl);
  }
  const { handle, applied } = await openAndMigrate(config, 'apply');
  await handle.close();
  return applied;
}

async function openAndMigrate(
  config: DatabaseConfig,
  schemaOnOpen: SchemaOnOpen,
): Promise<{ handle: DatabaseHandle; applied: string[] }> {
  const connectionString = config.databaseUrl;
  if (connectionString !== undefined) {
    const statementTimeoutMs = config.databaseStatementTimeoutMs ?? databaseDefaults.statementTimeoutMs;
    const signInTimeoutMs = Math.min(
      config.databaseSignInTimeoutMs ?? databaseDefaults.signInTimeoutMs,
      statementTimeoutMs,
    );
    await waitForPostgres(connectionString, config.databaseWaitSeconds ?? databaseDefaults.waitSeconds);
    let applied: string[] = [];
    if (schemaOnOpen === 'apply') applied = await migratePostgres(connectionString);
    else await verifyPostgresSchema(connectionString);
    const pool = new CallerContextPool({
      connectionString,
      Client: StatementBoundClient,
      max: 10,
      connectionTimeoutMillis: postgresTimeouts.acquireMs,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + postgresTimeouts.answerGraceMs,
    });
    // An idle connection the database drops (a restart, a failover) must not end the process: the
    // pool replaces it on the next query, so the error is only reported.
    let backgroundErrorListener = reportToStderr;
    pool.on('error', (error) => backgroundErrorListener(error, 'database connection lost'));
    // A connection lost while checked out between two statements would be an uncaught error: the
    // statement that uses it next fails instead, and the pool drops it.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const db = drizzlePg(pool, { schema });
    runStatementsWith(db, async (statement, values) => {
      const result = await pool.query({ name: statement.name, text: statement.text, values });
      return result.rows;
    });
    const handle: DatabaseHandle = {
      db,
      kind: 'postgres',
      onBackgroundError: (listener) => {
        backgroundErrorListener = listener;
      },
      // On a connection of its own: a pooled one may be a dropped connection not yet reported.
      ping: () => askPostgres(connectionString, postgresTimeouts.probeMs),
      withSignInBound: (work) => withStatementBound(signInTimeoutMs, work),
      waiting: () => pool.waitingCount,
      close: () => pool.end(),
    };
    return { handle, applied };
  }
  const lock = await lockDataDir(config.dataDir);
  try {
    // Loaded only here: PGlite's WebAssembly costs memory a PostgreSQL server never needs.
    const [{ PgliteThread }, { drizzle: drizzlePglite }] = await Promise.all([
      import('./pglite-thread.ts'),
      import('drizzle-orm/pglite'),
    ]);
    const client = await PgliteThread.open({
      path: embeddedDatabaseDir(config.dataDir),
      postgresqlconf: [`shared_buffers=${pgliteSharedBuffers}`],
    });
    let applied: string[];
    try {
      applied = await migratePglite(client);
    } catch (error) {
      await client.close();
      throw error;
    }
    // drizzle's PGlite driver calls only `query` and `transaction`, which the thread answers alike.
    const db = drizzlePglite({ client: client as unknown as PGlite, schema });
    // PGlite is one connection: a named statement is a text the thread may prepare, an unnamed one is planned each run.
    runStatementsWith(db, async (statement, values) => {
      const results =
        statement.name === undefined
          ? await client.queryPlannedEachTime(statement.text, values)
          : await client.query(statement.text, values);
      return results.rows;
    });
    let backgroundErrorListener = reportToStderr;
    client.onStop((error) => backgroundErrorListener(error, 'the embedded database stopped'));
    const stopVacuum = startEmbeddedVacuum(db, (error) =>
      backgroundErrorListener(error, 'vacuum of the embedded database failed'),
    );
    const handle: DatabaseHandle = {
      db,
      kind: 'pglite',
      onBackgroundError: (listener) => {
        backgroundErrorListener = listener;
      },
      ping: async () => {
        await client.query('SELECT 1');
      },
      withSignInBound: (work) => work(),
      dumpDataDir: () => client.dumpDataDir(),
      waiting: () => client.waiting,
      serveControlCommands: (handler) => lock.serveCommands(handler),
      close: async () => {
        await stopVacuum();
        await client.close();
        lock.release();
      },
    };
    return { handle, applied };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/**
 * What `build` makes of a database handle, made once per handle at its first use: the prepared
 * queries of a hot path are built once, then prepared once per connection on PostgreSQL.
 */
export function oncePerHandle<T>(build: (db: Database) => T): (db: Database) => T {
  const built = new WeakMap<Database, T>();
  return (db) => {
    let value = built.get(db);
    if (value === undefined) {
      value = build(db);
      built.set(db, value);
    }
    return value;
  };
}
