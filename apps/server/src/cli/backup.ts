import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import { sendControlCommand } from '../db/data-dir-lock.ts';
import { DatabaseAlreadyThereError, restoreEmbeddedDatabase } from '../db/embedded-backup.ts';
import { type DatabaseHandle, openDatabase } from '../db/index.ts';

/**
 * `backup --out <file>` and `restore --from <file>` for the embedded database (decision record
 * 036). A backup is PGlite's own dump of its data directory, taken by whichever process holds it:
 * the running server, through the control socket, or this command. PostgreSQL has pg_dump.
 */

interface Output {
  stdout(text: string): void;
  stderr(text: string): void;
}

const processOutput: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

const usages = {
  backup: 'npm run cli -- backup --out <file>',
  restore: 'npm run cli -- restore --from <file>',
} as const;

const onPostgres =
  'DATABASE_URL is set: back up and restore PostgreSQL with pg_dump and pg_restore (docs/operations.md "Backups").\n';

/** The one file option of `command`, made absolute; undefined when mistyped. */
function fileOption(args: readonly string[], option: 'out' | 'from'): string | undefined {
  try {
    const { values } = parseArgs({
      args: [...args],
      options: { [option]: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    });
    const file = values[option];
    return typeof file === 'string' && file !== '' ? path.resolve(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the backup beside its final name first, owner-only: it holds password hashes and keys. */
function writeBackup(file: string, tarball: Uint8Array): void {
  const partial = `${file}.partial`;
  try {
    writeFileSync(partial, tarball, { mode: 0o600 });
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Runs `backup` against a database this process holds: the server's control socket handler calls
 * it with its own handle, and `backupCommand` with one it opened.
 */
export async function backupFrom(
  database: Pick<DatabaseHandle, 'dumpDataDir'>,
  args: readonly string[],
  output: Output,
): Promise<number> {
  const file = fileOption(args, 'out');
  if (file === undefined) {
    output.stderr(`--out <file> is required.\n${usages.backup}\n`);
    return 2;
  }
  if (database.dumpDataDir === undefined) {
    output.stderr(onPostgres);
    return 1;
  }
  const tarball = await database.dumpDataDir();
  try {
    writeBackup(file, tarball);
  } catch (error) {
    output.stderr(`Could not write ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  output.stdout(`Backup of the embedded database written to ${file} (${tarball.byteLength} bytes).\n`);
  return 0;
}

/** `backup --out <file>`: through the running server when one holds DATA_DIR, else directly. */
export async function backupCommand(config: Config, args: string[]): Promise<number> {
  if (config.databaseUrl !== undefined) {
    process.stderr.write(onPostgres);
    return 1;
  }
  const file = fileOption(args, 'out');
  if (file === undefined) {
    process.stderr.write(`--out <file> is required.\n${usages.backup}\n`);
    return 2;
  }
  const sent = await sendControlCommand(
    config.dataDir,
    { argv: ['backup', '--out', file], actor: userInfo().username },
    processOutput,
  );
  if (sent !== undefined) return sent;
  const database = await openDatabase(config);
  try {
    return await backupFrom(database, ['--out', file], processOutput);
  } finally {
    await database.close();
  }
}

/** `restore --from <file>`: into DATA_DIR while no process holds it, and only where no database is. */
export async function restoreCommand(config: Config, args: string[]): Promise<number> {
  if (config.databaseUrl !== undefined) {
    process.stderr.write(onPostgres);
    return 1;
  }
  const file = fileOption(args, 'from');
  if (file === undefined) {
    process.stderr.write(`--from <file> is required.\n${usages.restore}\n`);
    return 2;
  }
  let tarball: Uint8Array;
  try {
    tarball = readFileSync(file);
  } catch (error) {
    process.stderr.write(
      `Could not read ${file}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
  try {
    await restoreEmbeddedDatabase(config.dataDir, tarball);
  } catch (error) {
    if (error instanceof DatabaseAlreadyThereError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
  process.stdout.write(
    `Restored the embedded database in ${config.dataDir} from ${file}. It needs the KBA_PEPPER it was made with (DATA_DIR/kba-pepper).\n`,
  );
  return 0;
}
