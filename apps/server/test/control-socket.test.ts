import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain, serverRoot } from './cli-helpers.ts';
import { freePort, testDatabaseUrl } from './helpers/server.ts';

/**
 * The operator CLI while a server holds the embedded database: each command reaches the server
 * over the data directory's socket and runs there, with the same output and exit codes, so an
 * operator need not stop the product to unlock a user or revoke a mailing.
 */

describe.runIf(testDatabaseUrl === undefined)('operator commands against a running server on PGlite', () => {
  let dataDir: string;
  let server: ChildProcess;
  let baseUrl: string;
  let env: Record<string, string>;
  let admin: { username: string; password: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'entry-control-'));
    const port = await freePort();
    env = { DATA_DIR: dataDir, KBA_PEPPER: 'a pepper for the control socket test', LOG_FORMAT: 'json' };
    server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: serverRoot,
      env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    baseUrl = `http://127.0.0.1:${port}`;
    // Ready once it answers: the server seeds the demo and hashes its passwords first.
    for (let answered = false; !answered; ) {
      if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
      answered = await fetch(`${baseUrl}/api/health`).then(
        (response) => response.ok,
        () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 200)),
      );
    }
    admin = (JSON.parse(readFileSync(path.join(dataDir, 'demo.json'), 'utf8')) as { admin: typeof admin })
      .admin;
  }, 90_000);
  afterAll(async () => {
    if (server !== undefined && server.exitCode === null) {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  const signIn = () =>
    fetch(`${baseUrl}/api/auth/v1/admin/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: admin.username, password: admin.password }),
    }).then((response) => response.status);

  it('runs each command in the server, which sees its effect at once, and audits the OS user', async () => {
    expect(statSync(path.join(dataDir, 'pglite.sock')).mode & 0o777).toBe(0o600);
    expect(await signIn()).toBe(200);

    const disabled = await runMain(env, 'user', 'disable', '--kind', 'admin', '--username', admin.username);
    expect(disabled).toEqual({
      code: 0,
      stdout: `admin user ${admin.username} disabled; its open sessions have ended.\n`,
      stderr: '',
    });
    expect(await signIn()).toBe(401);

    const enabled = await runMain(
      env,
      'user',
      'enable',
      '--kind',
      'admin',
      '--username',
      admin.username,
      '--format',
      'json',
    );
    expect(enabled.code).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ username: admin.username });
    expect(await signIn()).toBe(200);

    const factorsOf = async () =>
      JSON.parse(
        (
          await runMain(
            env,
            'user',
            'factors',
            '--kind',
            'admin',
            '--username',
            admin.username,
            '--format',
            'json',
          )
        ).stdout,
      ) as { authenticatorApp: string };
    expect(await factorsOf()).toMatchObject({ authenticatorApp: 'confirmed' });
    const reset = await runMain(
      env,
      'user',
      'factors-reset',
      '--kind',
      'admin',
      '--username',
      admin.username,
    );
    expect(reset.code).toBe(0);
    expect(await factorsOf()).toMatchObject({ authenticatorApp: 'none' });

    const revoked = await runMain(env, 'links', 'revoke', '--mailing', 'no-such-mailing');
    expect(revoked).toMatchObject({ code: 1, stdout: '' });
    expect(revoked.stderr).toMatch(/^ItemNotFound: There is no mailing named "no-such-mailing"\./);

    const mistyped = await runMain(env, 'user', 'unlock', '--kind');
    expect(mistyped.code).toBe(2);
    expect(mistyped.stderr).toContain('npm run cli -- user unlock');

    const exported = await runMain(
      env,
      'audit',
      'export',
      '--from',
      '2000-01-01T00:00:00Z',
      '--to',
      '2100-01-01T00:00:00Z',
      '--format',
      'jsonl',
    );
    expect(exported.code).toBe(0);
    const events = exported.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { event: string; actor: string | null });
    expect(events).toContainEqual(
      expect.objectContaining({ event: 'operator.admin.disable', actor: `operator:${userInfo().username}` }),
    );
    expect(server.exitCode).toBeNull();
  }, 120_000);
});
