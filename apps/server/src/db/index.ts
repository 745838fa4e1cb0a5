import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { type Config, databaseDefaults } from '../config.ts';
import { type ControlCommandHandler, lockDataDir } from './data-dir-lock.ts';
import { type Database, runStatementsWith } from './database.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';
import type { PgliteThread } from './pglite-thread.ts';
import { askPostgres, waitForPostgres } from './postgres-wait.ts';
import * as schema from './schema.ts';
import { CallerContextPool, StatementBoundClient, withStatementBound } from './statement-bounds.ts';

export type { Database } from './database.ts';

/** A migration the database has applied, with the checksum of its file when it was applied. */
interface AppliedMigration {
  name: string;
  checksum: string | null;
}

/** Raw SQL access for migrations: multi-statement scripts inside one transaction. */
interface MigrationSession {
  exec(sql: string): Promise<void>;
  applied(): Promise<AppliedMigration[]>;
  record(migration: Migration): Promise<void>;
  /** Fills the checksum of a migration applied before migrations carried one. */
  recordChecksum(migration: Migration): Promise<void>;
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
export const migrationLockId = 727_001;

/** The migrations table; the checksum column came later, so an older table gets it added. */
const createMigrationsTable = [
  'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)',
  'ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text',
].join(';\n');
const selectAppliedMigrations = 'SELECT name, checksum FROM schema_migrations ORDER BY name';
const insertAppliedMigration = 'INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)';
const fillMissingChecksum = 'UPDATE schema_migrations SET checksum = $2 WHERE name = $1 AND checksum IS NULL';

export interface Migration {
  name: string;
  sql: string;
  /** SHA-256 of the file, recorded when it is applied: a file edited afterwards no longer matches. */
  checksum: string;
}

export function migrationFiles(): Migration[] {
  return readdirSync(migrationsDir)
    .filter((file) => /^\d{4}_[a-z0-9_-]+\.sql$/.test(file))
    .sort()
    .map((file) => {
      const sql = readFileSync(path.join(migrationsDir, file), 'utf8');
      return {
        name: file.replace(/\.sql$/, ''),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

/** The database's schema is not the one this build ships, or a migration changed after it was applied. */
export class SchemaMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SchemaMismatchError';
  }
}

const migrateAdvice =
  'Run the migrate command first (node apps/server/dist/main.js migrate), or start with MIGRATE=1.';

/** The last of `names` in the order migrations run, or `none`. */
function lastOf(names: readonly string[]): string {
  return [...names].sort().at(-1) ?? 'none';
}

/**
 * Refuses a database that applied a migration this build does not ship (a newer build migrated
 * it) or whose recorded checksum differs from the shipped file (the file was edited after).
 */
function assertAppliedAreShipped(shipped: readonly Migration[], applied: readonly AppliedMigration[]): void {
  const shippedByName = new Map(shipped.map((migration) => [migration.name, migration]));
  const unknown = applied.filter((migration) => !shippedByName.has(migration.name)).map((row) => row.name);
  if (unknown.length > 0) {
    throw new SchemaMismatchError(
      `The database schema is newer than this build: its last applied migration is ${lastOf(applied.map((row) => row.name))}, this build's last is ${lastOf(shipped.map((migration) => migration.name))}. Run a build that ships ${unknown.join(', ')}.`,
    );
  }
  for (const row of applied) {
    const file = shippedByName.get(row.name);
    if (file !== undefined && row.checksum !== null && row.checksum !== file.checksum) {
      throw new SchemaMismatchError(
        `Migration ${row.name} was changed after the database applied it (its checksum differs): restore apps/server/src/db/migrations/${row.name}.sql as it was applied and put the change in a new migration.`,
      );
    }
  }
}

/**
 * Refuses a database whose schema is not exactly this build's: migrations pending, unknown or
 * changed, or applied before migrations carried checksums. Changes nothing.
 */
function assertSchemaMatches(applied: readonly AppliedMigration[] | undefined): void {
  const shipped = migrationFiles();
  const shippedNames = shipped.map((migration) => migration.name);
  const appliedRows = applied ?? [];
  assertAppliedAreShipped(shipped, appliedRows);
  const appliedNames = new Set(appliedRows.map((row) => row.name));
  const pending = shippedNames.filter((name) => !appliedNames.has(name));
  const versions = `its last applied migration is ${lastOf([...appliedNames])}, this build's last is ${lastOf(shippedNames)}`;
  if (pending.length > 0) {
    throw new SchemaMismatchError(
      `The database schema is older than this build: ${versions} (${pending.length} to apply). ${migrateAdvice}`,
    );
  }
  if (appliedRows.some((row) => row.checksum === null)) {
    throw new SchemaMismatchError(
      `The database's migrations carry no checksums yet (an older build applied them; ${versions}). ${migrateAdvice}`,
    );
  }
}

async function applyMigrations(session: MigrationSession): Promise<string[]> {
  await session.exec(createMigrationsTable);
  const shipped = migrationFiles();
  const applied = await session.applied();
  assertAppliedAreShipped(shipped, applied);
  const appliedNames = new Set(applied.map((row) => row.name));
  const withoutChecksum = new Set(applied.filter((row) => row.checksum === null).map((row) => row.name));
  const appliedNow: string[] = [];
  for (const migration of shipped) {
    if (withoutChecksum.has(migration.name)) await session.recordChecksum(migration);
    if (appliedNames.has(migration.name)) continue;
    await session.exec(migration.sql);
    await session.record(migration);
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
      applied: async () => (await tx.query<AppliedMigration>(selectAppliedMigrations)).rows,
      record: async (migration) => {
        await tx.query(insertAppliedMigration, [migration.name, migration.checksum]);
      },
      recordChecksum: async (migration) => {
        await tx.query(fillMissingChecksum, [migration.name, migration.checksum]);
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
const postgresTimeouts = { acquireMs: 3000, answerGraceMs: 2000, probeMs: 1000 } as const;

/** A connection of its own for migrations, without the request timeouts. */
async function migrationConnection(connectionString: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString });
  // A connection lost between statements fails the next one; it must not end the process.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/**
 * Applies the pending migrations in one transaction under the advisory lock: instances starting
 * together wait for the first, then find nothing left to apply.
 */
async function migratePostgres(connectionString: string): Promise<string[]> {
  const client = await migrationConnection(connectionString);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockId]);
    const applied = await applyMigrations({
      exec: async (sql) => {
        await client.query(sql);
      },
      applied: async () => (await client.query<AppliedMigration>(selectAppliedMigrations)).rows,
      record: async (migration) => {
        await client.query(insertAppliedMigration, [migration.name, migration.checksum]);
      },
      recordChecksum: async (migration) => {
        await client.query(fillMissingChecksum, [migration.name, migration.checksum]);
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

/** Refuses a PostgreSQL database whose schema is not this build's (see `assertSchemaMatches`). */
async function verifyPostgresSchema(connectionString: string): Promise<void> {
  const client = await migrationConnection(connectionString);
  try {
    const { rows } = await client.query<{ migrationsTable: boolean; checksums: boolean }>(
      `SELECT to_regclass('schema_migrations') IS NOT NULL AS "migrationsTable",
        EXISTS (SELECT 1 FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = 'schema_migrations' AND column_name = 'checksum') AS checksums`,
    );
    const found = rows[0];
    if (found?.migrationsTable !== true) return assertSchemaMatches(undefined);
    const applied = found.checksums
      ? (await client.query<AppliedMigration>(selectAppliedMigrations)).rows
      : (await client.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((row) => ({
          name: row.name,
          checksum: null,
        }));
    assertSchemaMatches(applied);
  } finally {
    await client.end();
  }
}

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
    // PGlite is one connection without named statements: the text is simply run.
    runStatementsWith(db, async (statement, values) => (await client.query(statement.text, values)).rows);
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
