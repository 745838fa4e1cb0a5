import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, migrateDatabase, openDatabase } from '../src/db/index.ts';
import { migrationFiles, migrationLockId, SchemaMismatchError } from '../src/db/migrate.ts';
import { runMain } from './cli-helpers.ts';
import { createTestDatabase, type TestDatabase, testDatabaseUrl } from './helpers/server.ts';

/**
 * Migrations as a step of their own: each applied migration keeps its file's checksum, and a
 * database whose schema is not the build's (pending, unknown or changed migrations) is refused.
 */

const shipped = migrationFiles();
const lastShipped = shipped.at(-1)?.name ?? '';

let database: TestDatabase;
const opened: DatabaseHandle[] = [];

async function open(schema: 'apply' | 'verify' = 'apply'): Promise<DatabaseHandle> {
  const handle = await openDatabase(database, schema);
  opened.push(handle);
  return handle;
}

async function run(handle: DatabaseHandle, text: string): Promise<void> {
  await handle.db.execute(sql.raw(text));
}

async function recordedChecksums(handle: DatabaseHandle): Promise<Record<string, string | null>> {
  const result = await handle.db.execute<{ name: string; checksum: string | null }>(
    sql.raw('SELECT name, checksum FROM schema_migrations ORDER BY name'),
  );
  const rows = Array.isArray(result)
    ? result
    : (result as { rows: { name: string; checksum: string | null }[] }).rows;
  return Object.fromEntries(rows.map((row) => [row.name, row.checksum]));
}

async function closeAll(): Promise<void> {
  for (const handle of opened.splice(0)) await handle.close();
}

async function refusal(opening: Promise<unknown>): Promise<SchemaMismatchError> {
  const error = await opening.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SchemaMismatchError);
  return error as SchemaMismatchError;
}

beforeEach(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  await closeAll();
  await database.drop();
});

// Each check opens the database twice, and PGlite takes seconds to open on a busy machine.
describe('applied migrations carry checksums', { timeout: 60_000 }, () => {
  it('records the checksum of every file it applies, and fills those of a database migrated before checksums', async () => {
    const expected = Object.fromEntries(shipped.map((migration) => [migration.name, migration.checksum]));
    const handle = await open();
    expect(await recordedChecksums(handle)).toEqual(expected);
    await run(handle, 'ALTER TABLE schema_migrations DROP COLUMN checksum');
    await closeAll();
    expect(await recordedChecksums(await open())).toEqual(expected);
  });

  it('stops start-up on a migration changed after it was applied, naming it', async () => {
    const changed = shipped[1]?.name ?? '';
    await run(await open(), `UPDATE schema_migrations SET checksum = 'edited' WHERE name = '${changed}'`);
    await closeAll();
    const error = await refusal(openDatabase(database));
    expect(error.message).toContain(`Migration ${changed} was changed after the database applied it`);
  });

  it('refuses a database a newer build migrated, naming both versions', async () => {
    const newer = '9999_from_a_newer_build';
    await run(await open(), `INSERT INTO schema_migrations (name, checksum) VALUES ('${newer}', 'x')`);
    await closeAll();
    const error = await refusal(openDatabase(database));
    expect(error.message).toContain('newer than this build');
    expect(error.message).toContain(
      `its last applied migration is ${newer}, this build's last is ${lastShipped}`,
    );
  });
});

describe.skipIf(testDatabaseUrl === undefined)('serve on PostgreSQL without MIGRATE', () => {
  const env = (): Record<string, string> => ({
    DATABASE_URL: database.databaseUrl ?? '',
    KBA_PEPPER: database.pepper,
    AUTH_SIGNING_KEY: database.authSigningKey ?? '',
    DATA_DIR: database.dataDir,
    MAIL_TRANSPORT: 'log',
    PORT: '0',
  });

  it('refuses to start or run a command on an empty database, then starts once `migrate` has run', async () => {
    const [refused, command] = await Promise.all([runMain(env(), 'serve'), runMain(env(), 'tenant', 'list')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `The database schema is older than this build: its last applied migration is none, this build's last is ${lastShipped}`,
    );
    expect(refused.stderr).not.toContain('    at ');
    expect(command.code).toBe(1);
    expect(command.stderr).toContain('The database schema is older than this build');

    const migrated = await runMain(env(), 'migrate');
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain(`Applied ${shipped.length} migrations`);
    await open('verify');
  }, 60_000);

  it('refuses a schema a migration behind its build, naming both versions', async () => {
    await migrateDatabase(database);
    const handle = await open();
    const previous = shipped.at(-2)?.name ?? '';
    await run(handle, `DELETE FROM schema_migrations WHERE name = '${lastShipped}'`);
    const error = await refusal(openDatabase(database, 'verify'));
    expect(error.message).toContain(
      `its last applied migration is ${previous}, this build's last is ${lastShipped}`,
    );
  });

  it('refuses a schema migrated before migrations carried checksums until `migrate` fills them', async () => {
    await migrateDatabase(database);
    await run(await open(), 'ALTER TABLE schema_migrations DROP COLUMN checksum');
    expect((await refusal(openDatabase(database, 'verify'))).message).toContain('carry no checksums yet');
    expect(await migrateDatabase(database)).toEqual([]);
    await open('verify');
  });
});

describe.skipIf(testDatabaseUrl === undefined)('instances migrating at once', () => {
  it('lets exactly one apply the migrations while the others wait, then find nothing to apply', async () => {
    const results = await Promise.all([
      migrateDatabase(database),
      migrateDatabase(database),
      migrateDatabase(database),
    ]);
    const migrating = results.filter((applied) => applied.length > 0);
    expect(migrating).toEqual([shipped.map((migration) => migration.name)]);
    expect(results.filter((applied) => applied.length === 0)).toHaveLength(2);
  });

  it('waits for the instance holding the migration lock', async () => {
    const holder = new pg.Client({ connectionString: database.databaseUrl });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1)', [migrationLockId]);
      const migrating = migrateDatabase(database);
      // The migration asks for the lock and waits on it: one advisory lock not granted.
      for (;;) {
        const { rows } = await holder.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted",
          [migrationLockId],
        );
        if (rows[0]?.waiting === 1) break;
      }
      const { rows } = await holder.query<{ table: string | null }>(
        "SELECT to_regclass('schema_migrations')::text AS table",
      );
      expect(rows[0]?.table).toBeNull();
      await holder.query('SELECT pg_advisory_unlock($1)', [migrationLockId]);
      expect(await migrating).toHaveLength(shipped.length);
    } finally {
      await holder.end();
    }
  });
});
