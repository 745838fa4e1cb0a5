import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupFrom } from '../src/cli/backup.ts';
import { runCli } from '../src/cli/operator.ts';
import { loadConfig } from '../src/config.ts';
import { executeStatement, statement } from '../src/db/database.ts';
import { type DatabaseHandle, openDatabase } from '../src/db/index.ts';
import { runMain } from './cli-helpers.ts';

/**
 * `backup` and `restore` of the embedded database as an operator runs them: a backup taken from a
 * data directory another process holds and keeps writing to, restored into a fresh one.
 */

const tenantSubdomains = statement('SELECT subdomain FROM tenants ORDER BY subdomain');

async function subdomainsOf(handle: DatabaseHandle): Promise<string[]> {
  return (await executeStatement<{ subdomain: string }>(handle.db, tenantSubdomains, [])).map(
    (row) => row.subdomain,
  );
}

describe('backup and restore of the embedded database', () => {
  const pepper = 'a pepper for this test only';
  let servedDir: string;
  let serving: DatabaseHandle;
  const scratch: string[] = [];
  const tempDir = (name: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), `entry-${name}-`));
    scratch.push(dir);
    return dir;
  };

  beforeAll(async () => {
    servedDir = tempDir('served');
    serving = await openDatabase({ dataDir: servedDir, databaseUrl: undefined });
    // As `serve` does: the holder runs the backup sent over its control socket.
    serving.serveControlCommands?.((command, output) => backupFrom(serving, command.argv.slice(1), output));
    const config = loadConfig({ DATA_DIR: servedDir, KBA_PEPPER: pepper });
    const sink = new PassThrough().resume();
    const created = await runCli(['tenant', 'create', '--subdomain', 'backed-up', '--name', 'Backed Up'], {
      config,
      stdout: sink,
      stderr: sink,
      database: async () => serving,
      actor: 'test-operator',
    });
    expect(created).toBe(0);
  });
  afterAll(async () => {
    await serving?.close();
    for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
  });

  it('backs up while the holder serves, and restores into a fresh data directory', async () => {
    const file = path.join(tempDir('backups'), 'entry.tgz');
    // The holder keeps answering statements while the backup is taken.
    const busy = Promise.all(Array.from({ length: 50 }, () => subdomainsOf(serving)));
    const backup = await runMain({ DATA_DIR: servedDir, KBA_PEPPER: pepper }, 'backup', '--out', file);
    expect(backup).toMatchObject({ code: 0, stderr: '' });
    expect(backup.stdout).toContain(`Backup of the embedded database written to ${file}`);
    await busy;
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const refused = await runMain({ DATA_DIR: servedDir, KBA_PEPPER: pepper }, 'restore', '--from', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`The data directory ${servedDir} is in use by another process`);

    const freshDir = tempDir('restored');
    const restored = await runMain({ DATA_DIR: freshDir, KBA_PEPPER: pepper }, 'restore', '--from', file);
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    const again = await runMain({ DATA_DIR: freshDir, KBA_PEPPER: pepper }, 'restore', '--from', file);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds a database');

    const reopened = await openDatabase({ dataDir: freshDir, databaseUrl: undefined });
    try {
      expect(await subdomainsOf(reopened)).toEqual(await subdomainsOf(serving));
      expect(await subdomainsOf(reopened)).toContain('backed-up');
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it('points PostgreSQL users to pg_dump', async () => {
    const run = await runMain(
      { DATA_DIR: servedDir, KBA_PEPPER: pepper, DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' },
      'backup',
      '--out',
      path.join(servedDir, 'never.tgz'),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('pg_dump');
  }, 60_000);
});
