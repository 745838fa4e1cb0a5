import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** PGlite is single-process: a second process must never open a DATA_DIR that another one holds. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by another process (pid ${pid}). ` +
        'Stop that process, or set DATA_DIR to another directory, or use DATABASE_URL for PostgreSQL.',
    );
    this.name = 'DataDirInUseError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the lock file `DATA_DIR/pglite.lock` holding this process's id. A lock left by a process
 * that no longer runs is taken over. Returns the function that releases it.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'pglite.lock');
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
      return () => {
        if (readHolder(lockFile) === process.pid) rmSync(lockFile, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(lockFile);
      if (holder !== undefined && holder !== process.pid && isAlive(holder)) {
        throw new DataDirInUseError(dataDir, holder);
      }
      rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}`);
}
