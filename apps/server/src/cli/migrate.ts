import type { Config } from '../config.ts';
import { migrateDatabase } from '../db/index.ts';

/**
 * `migrate`: applies the pending migrations, then exits; the step before starting a new build on
 * PostgreSQL, whose `serve` refuses a schema not its own unless MIGRATE=1 (decision record 033).
 */
export async function migrateCommand(config: Config): Promise<number> {
  const applied = await migrateDatabase(config);
  process.stdout.write(
    applied.length === 0
      ? "No migration to apply: the database schema is this build's.\n"
      : `Applied ${applied.length} migration${applied.length === 1 ? '' : 's'}: ${applied.join(', ')}\n`,
  );
  return 0;
}
