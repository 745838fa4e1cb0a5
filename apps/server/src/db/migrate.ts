/**
 * The schema's migrations: the shipped files with their checksums, applying the pending ones under
 * an advisory lock, and refusing a PostgreSQL schema that is not this build's.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { PgliteThread } from './pglite-thread.ts';

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

export async function migratePglite(client: PgliteThread): Promise<string[]> {
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
export async function migratePostgres(connectionString: string): Promise<string[]> {
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
export async function verifyPostgresSchema(connectionString: string): Promise<void> {
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
