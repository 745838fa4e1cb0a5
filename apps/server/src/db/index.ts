import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { type Config, databaseDefaults } from '../config.ts';
import { type ControlCommandHandler, lockDataDir } from './data-dir-lock.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';
import type { PgliteThread } from './pglite-thread.ts';
import { askPostgres, waitForPostgres } from './postgres-wait.ts';
import * as schema from './schema.ts';
import { CallerContextPool, StatementBoundClient, withStatementBound } from './statement-bounds.ts';

export type Schema = typeof schema;
/** The one database type the services use, whichever driver is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

/** Raw SQL access for migrations: multi-statement scripts inside one transaction. */
interface MigrationSession {
  exec(sql: string): Promise<void>;
  names(): Promise<string[]>;
  record(name: string): Promise<void>;
}

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

const migrationsDir = path.join(import.meta.dirname, 'migrations');
/** Any fixed number: the advisory lock that serialises migrations across instances. */
const migrationLockId = 727_001;

const createMigrationsTable =
  'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())';

export function migrationFiles(): { name: string; sql: string }[] {
  return readdirSync(migrationsDir)
    .filter((file) => /^\d{4}_[a-z0-9_-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      name: file.replace(/\.sql$/, ''),
      sql: readFileSync(path.join(migrationsDir, file), 'utf8'),
    }));
}

async function applyMigrations(session: MigrationSession): Promise<string[]> {
  await session.exec(createMigrationsTable);
  const applied = new Set(await session.names());
  const appliedNow: string[] = [];
  for (const migration of migrationFiles()) {
    if (applied.has(migration.name)) continue;
    await session.exec(migration.sql);
    await session.record(migration.name);
    appliedNow.push(migration.name);
  }
  return appliedNow;
}

async function migratePglite(client: PgliteThread): Promise<string[]> {
  return client.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [migrationLockId]);
    return applyMigrations({
      exec: async (sql) => {
        await tx.exec(sql);
      },
      names: async () =>
        (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => row.name),
      record: async (name) => {
        await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      },
    });
  });
}

/**
 * Bounded waits on PostgreSQL, so a frozen or unreachable database fails requests instead of
 * holding them: a pooled connection must be had within this, and a statement answered within
 * DATABASE_STATEMENT_TIMEOUT_MS (the server's own bound) plus the grace (the client's, for a
 * server too frozen to cancel anything), or within DATABASE_SIGN_IN_TIMEOUT_MS on a sign-in.
 */
export const postgresTimeouts = { acquireMs: 3000, answerGraceMs: 2000, probeMs: 1000 } as const;

/** Migrations run on a connection of their own, without the request timeouts. */
async function migratePostgres(connectionString: string): Promise<string[]> {
  const client = new pg.Client({ connectionString });
  // A connection lost between statements fails the next one; it must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockId]);
    const applied = await applyMigrations({
      exec: async (sql) => {
        await client.query(sql);
      },
      names: async () =>
        (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map(
          (row) => row.name,
        ),
      record: async (name) => {
        await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [name]);
      },
    });
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  } finally {
    await client.end();
  }
}

const reportToStderr: BackgroundErrorListener = (error, what) => {
  process.stderr.write(`${JSON.stringify({ level: 'error', msg: what, error: error.message })}\n`);
};

/**
 * Opens PostgreSQL when DATABASE_URL is set, otherwise the embedded PGlite in DATA_DIR/pglite
 * (locked against a second process, and vacuumed by this process: see embedded-vacuum.ts), and
 * applies the pending migrations.
 */
export async function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> &
    Partial<Pick<Config, 'databaseWaitSeconds' | 'databaseStatementTimeoutMs' | 'databaseSignInTimeoutMs'>>,
): Promise<DatabaseHandle> {
  const connectionString = config.databaseUrl;
  if (connectionString !== undefined) {
    const statementTimeoutMs = config.databaseStatementTimeoutMs ?? databaseDefaults.statementTimeoutMs;
    const signInTimeoutMs = Math.min(
      config.databaseSignInTimeoutMs ?? databaseDefaults.signInTimeoutMs,
      statementTimeoutMs,
    );
    await waitForPostgres(connectionString, config.databaseWaitSeconds ?? databaseDefaults.waitSeconds);
    await migratePostgres(connectionString);
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
    runners.set(db, async (statement, values) => {
      const result = await pool.query({ name: statement.name, text: statement.text, values });
      return result.rows;
    });
    return {
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
  }
  const lock = await lockDataDir(config.dataDir);
  try {
    // Loaded only here: PGlite's WebAssembly costs memory a PostgreSQL server never needs.
    const [{ PgliteThread }, { drizzle: drizzlePglite }] = await Promise.all([
      import('./pglite-thread.ts'),
      import('drizzle-orm/pglite'),
    ]);
    const client = await PgliteThread.open({
      path: path.join(config.dataDir, 'pglite'),
      postgresqlconf: [`shared_buffers=${pgliteSharedBuffers}`],
    });
    try {
      await migratePglite(client);
    } catch (error) {
      await client.close();
      throw error;
    }
    // drizzle's PGlite driver calls only `query` and `transaction`, which the thread answers alike.
    const db = drizzlePglite({ client: client as unknown as PGlite, schema });
    // PGlite is one connection without named statements: the text is simply run.
    runners.set(db, async (statement, values) => (await client.query(statement.text, values)).rows);
    let backgroundErrorListener = reportToStderr;
    client.onStop((error) => backgroundErrorListener(error, 'the embedded database stopped'));
    const stopVacuum = startEmbeddedVacuum(db, (error) =>
      backgroundErrorListener(error, 'vacuum of the embedded database failed'),
    );
    return {
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

/**
 * A raw statement with a fixed text. On PostgreSQL a named one is parsed and planned once per
 * connection (node-postgres keeps it by name), instead of on every call; `name` is undefined when
 * the statement runs unnamed.
 */
export interface Statement {
  readonly name: string | undefined;
  readonly text: string;
}

/**
 * Every named statement stays prepared on every pooled connection for the connection's life, so
 * their number must stay bounded whatever builds them: past this many distinct texts, a new text
 * runs unnamed (planned each time, as before).
 */
export const maxNamedStatements = 64;
const namedTexts = new Map<string, Statement>();

/**
 * The statement for `text`, named after a hash of it: the same text always gets the same name, so
 * a name never meets two texts (node-postgres refuses that), and statements whose shape varies
 * (optional writes in one CTE) get one name per shape.
 */
export function statement(text: string): Statement {
  const known = namedTexts.get(text);
  if (known !== undefined) return known;
  if (namedTexts.size >= maxNamedStatements) return { name: undefined, text };
  const named = { name: `entry_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
  namedTexts.set(text, named);
  return named;
}

type StatementRunner = (statement: Statement, values: unknown[]) => Promise<unknown[]>;
/** How each handle opened by `openDatabase` runs a raw statement on its driver (drizzle has no named raw statements). */
const runners = new WeakMap<Database, StatementRunner>();

/** Runs `statement` with `values` as its parameters ($1, $2, ...), never interpolated. */
export async function executeStatement<Row>(
  db: Database,
  statement: Statement,
  values: unknown[],
): Promise<Row[]> {
  const run = runners.get(db);
  if (run === undefined) throw new Error('The database handle was not opened by openDatabase');
  return (await run(statement, values)) as Row[];
}
