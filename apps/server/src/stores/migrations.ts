import { pgTable, text } from 'drizzle-orm/pg-core';
import { type Database, migrationFiles } from '../db/index.ts';

/** The table the migration runner keeps; only readiness reads it. */
const schemaMigrations = pgTable('schema_migrations', { name: text('name').primaryKey() });

/** The names of the migrations this build ships, oldest first; read from disk on every call. */
export function shippedMigrationNames(): string[] {
  return migrationFiles().map((migration) => migration.name);
}

/** The names of the migrations the database has applied. */
export async function appliedMigrationNames(db: Database): Promise<Set<string>> {
  return new Set((await db.select().from(schemaMigrations)).map((row) => row.name));
}
