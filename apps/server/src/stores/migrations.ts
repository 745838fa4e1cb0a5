import { pgTable, text } from 'drizzle-orm/pg-core';
import { isDatabaseUnreachable } from '../db/availability.ts';
import type { Database } from '../db/index.ts';
import { migrationFiles } from '../db/migrate.ts';

/** The table the migration runner keeps; only readiness reads it. */
const schemaMigrations = pgTable('schema_migrations', { name: text('name').primaryKey() });

/** The names of the migrations this build ships, oldest first; read from disk on every call. */
export function shippedMigrationNames(): string[] {
  return migrationFiles().map((migration) => migration.name);
}

/**
 * The names of the migrations the database has applied. Asked again once when the pooled
 * connection it got had been dropped: the pool then opens a new one, and readiness does not flap.
 */
export async function appliedMigrationNames(db: Database): Promise<Set<string>> {
  const read = async () => new Set((await db.select().from(schemaMigrations)).map((row) => row.name));
  try {
    return await read();
  } catch (error) {
    if (!isDatabaseUnreachable(error)) throw error;
    return read();
  }
}
