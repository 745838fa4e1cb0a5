import { readdirSync } from 'node:fs';
import { lockDataDir } from './data-dir-lock.ts';
import { embeddedDatabaseDir } from './index.ts';

/** Restore refuses to write over a database: the operator moves it aside, nothing is lost by mistake. */
export class DatabaseAlreadyThereError extends Error {
  constructor(readonly directory: string) {
    super(
      `${directory} already holds a database. Move it aside (or set DATA_DIR to a new directory), then restore again.`,
    );
    this.name = 'DatabaseAlreadyThereError';
  }
}

function holdsFiles(directory: string): boolean {
  try {
    return readdirSync(directory).length > 0;
  } catch {
    return false;
  }
}

/**
 * Makes the embedded database of `dataDir` from a backup (`tarball`, as `backup` wrote it). Holds
 * the data directory's lock meanwhile, so it is refused while a server (or a command) holds it.
 */
export async function restoreEmbeddedDatabase(dataDir: string, tarball: Uint8Array): Promise<void> {
  const lock = await lockDataDir(dataDir);
  try {
    const directory = embeddedDatabaseDir(dataDir);
    if (holdsFiles(directory)) throw new DatabaseAlreadyThereError(directory);
    const { PGlite } = await import('@electric-sql/pglite');
    const restored = await PGlite.create(directory, { loadDataDir: new Blob([tarball]) });
    try {
      // Opening ran recovery on the copied files; a statement proves the result answers.
      await restored.query('SELECT count(*) FROM schema_migrations');
    } finally {
      await restored.close();
    }
  } finally {
    lock.release();
  }
}
