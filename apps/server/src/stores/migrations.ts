import { pgTable, text } from 'drizzle-orm/pg-core';
import { type Database, migrationFiles } from '../db/index.ts';

/** The table the migration runner keeps; only readiness reads it. */
const schemaMigrations = pgTable('schema_migrations', { name: text('name').primaryKey() });

/** The migrations this build ships that the database has not applied, oldest first. */
export async function pendingMigrations(db: Database): Promise<string[]> {
  const applied = new Set((await db.select().from(schemaMigrations)).map((row) => row.name));
  return migrationFiles()
    .map((migration) => migration.name)
    .filter((name) => !applied.has(name));
}
