import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AuthTokenResult } from '@entry/domain';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/index.ts';
import { staffUsers } from '../src/db/schema.ts';
import { assertStrongPassword } from '../src/services/passwords.ts';
import { cli, runMain, serverRoot } from './cli-helpers.ts';
import {
  call,
  createTestDatabase,
  databaseLabel,
  freePort,
  nextTotpCode,
  startTestServer,
  type TestDatabase,
  type TestServer,
  testDatabaseUrl,
} from './helpers/server.ts';

/**
 * The demo accounts exist only in a trial, with passwords of their own per data directory; a
 * deployment (PostgreSQL, or https) starts with no account at all and never prints its mail.
 */

function envOf(database: TestDatabase): Record<string, string> {
  const env: Record<string, string> = { DATA_DIR: database.dataDir, KBA_PEPPER: database.pepper };
  if (database.databaseUrl !== undefined) env.DATABASE_URL = database.databaseUrl;
  if (database.authSigningKey !== undefined) env.AUTH_SIGNING_KEY = database.authSigningKey;
  return env;
}

/** What makes `serve` a deployment on this run's database: PostgreSQL itself, or https on PGlite. */
// A deployment on PostgreSQL that applies its migrations as it starts, as `MIGRATE=1` asks.
const deployment: Record<string, string> =
  testDatabaseUrl === undefined ? { PUBLIC_SCHEME: 'https' } : { MIGRATE: '1' };

/**
 * `main.ts serve` in a process of its own until it answers, then stopped: all it wrote, and its
 * exit code. One that exits before it answers is returned as it ended.
 */
async function serveOnce(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: serverRoot,
    env: { ...process.env, ...env, PORT: String(port), LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = once(child, 'exit') as Promise<[number | null]>;
  try {
    for (let answered = false; !answered && child.exitCode === null; ) {
      answered = await fetch(`http://127.0.0.1:${port}/api/health`).then(
        (response) => response.ok,
        () => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 200)),
      );
    }
    if (child.exitCode === null) child.kill('SIGTERM');
    const [code] = await exited;
    return { code, stdout, stderr };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

async function staffUserCount(database: TestDatabase): Promise<number> {
  const handle = await openDatabase(database);
  try {
    return (await handle.db.select({ id: staffUsers.id }).from(staffUsers)).length;
  } finally {
    await handle.close();
  }
}

describe(`demo data only in a trial (${databaseLabel})`, () => {
  const databases: TestDatabase[] = [];
  const servers: TestServer[] = [];
  const newDatabase = async () => {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  };
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
    for (const database of databases.splice(0)) await database.drop();
  });
  /** A server on `database` (its own process start, in this one), the demo seeded or read as `serve` does. */
  const startOn = async (database: TestDatabase) => {
    const server = await startTestServer({ sharedDatabase: database });
    servers.push(server);
    return server;
  };
  const stop = async (server: TestServer) => {
    servers.splice(servers.indexOf(server), 1);
    await server.close();
  };

  it('starts a deployment only with SMTP_URL or MAIL_TRANSPORT=log, then seeds no account and prints no password', async () => {
    const database = await newDatabase();
    const refused = await serveOnce({ ...envOf(database), ...deployment });
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/SMTP_URL.*MAIL_TRANSPORT=log/),
    ]);

    const served = await serveOnce({ ...envOf(database), ...deployment, MAIL_TRANSPORT: 'log' });
    expect(served.code, served.stderr).toBe(0);
    expect(served.stdout).toContain('Server listening');
    expect(served.stdout + served.stderr).not.toMatch(/password|Try the product|totp|secret/i);
    expect(existsSync(path.join(database.dataDir, 'demo.json'))).toBe(false);
    expect(await staffUserCount(database)).toBe(0);
  }, 240_000);

  it('draws the demo passwords and authenticator secret anew for each data directory, kept for its owner only', async () => {
    const [one, other] = await Promise.all([startOn(await newDatabase()), startOn(await newDatabase())]);
    expect(one.demo.admin.password).not.toBe(other.demo.admin.password);
    expect(one.demo.customer.password).not.toBe(other.demo.customer.password);
    expect(one.demo.admin.totpSecret).not.toBe(other.demo.admin.totpSecret);
    for (const password of [one.demo.admin.password, one.demo.customer.password]) {
      await expect(assertStrongPassword(password)).resolves.toBeUndefined();
    }
    const demoFile = path.join(one.database.dataDir, 'demo.json');
    expect(statSync(demoFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(demoFile, 'utf8'))).toEqual(one.demo);
    const signedIn = await call(one.baseUrl, 'POST', '/api/auth/v1/customer/sign-in', {
      body: { username: one.demo.customer.username, password: one.demo.customer.password },
    });
    expect(signedIn.status).toBe(200);
  }, 240_000);

  it('never adds back the authenticator app of a demo admin whose factors an operator reset', async () => {
    const database = await newDatabase();
    const first = await startOn(database);
    const reset = await cli(first, 'user', 'factors-reset', '--kind', 'admin', '--username', 'admin');
    expect(reset, reset.stderr).toMatchObject({ code: 0 });
    await stop(first);

    const restarted = await startOn(database);
    expect(restarted.demo.admin.password).toBe(first.demo.admin.password);
    const factors = await cli(
      restarted,
      'user',
      'factors',
      '--kind',
      'admin',
      '--username',
      'admin',
      '--format',
      'json',
    );
    expect(JSON.parse(factors.stdout)).toMatchObject({ authenticatorApp: 'none' });
  }, 240_000);

  it('goes live with a first admin from `user create`: the link sets the password, the first sign-in enrols a second factor', async () => {
    const server = await startOn(await newDatabase());
    const created = await cli(
      server,
      'user',
      'create',
      '--kind',
      'admin',
      '--username',
      'ada',
      '--email',
      'ada@example.com',
      '--format',
      'json',
    );
    expect(created, created.stderr).toMatchObject({ code: 0 });
    const resetToken = new URL(
      (JSON.parse(created.stdout) as { setPasswordUrl: string }).setPasswordUrl,
    ).searchParams.get('token');
    const password = 'a first admin password of ada 47';
    const set = await call(server.baseUrl, 'POST', '/api/auth/v1/admin/password/change', {
      body: { resetToken, newPassword: password },
    });
    expect(set.status).toBe(204);

    const signedIn = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
      body: { username: 'ada', password },
    });
    expect(signedIn.body).toMatchObject({ hasRestrictedAccess: true, accessType: 'SecondFactorEnrolment' });
    const token = signedIn.body.accessToken;
    const started = await call<{ secret: string }>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/admin/second-factors/totp',
      { token },
    );
    const confirmed = await call<{ auth: AuthTokenResult }>(
      server.baseUrl,
      'POST',
      '/api/auth/v1/admin/second-factors/totp/confirm',
      {
        token,
        body: { code: nextTotpCode(server, started.body.secret) },
      },
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.auth).toMatchObject({ hasRestrictedAccess: false, accessType: 'Admin' });
  }, 240_000);

  it('says where the passwords are rather than print wrong ones when this data directory lacks them', async () => {
    const database = await newDatabase();
    await stop(await startOn(database));
    rmSync(path.join(database.dataDir, 'demo.json'));

    const run = await runMain(envOf(database), 'demo', '--json');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr.trim()).toBe(
      `The demo data in this database was seeded from another data directory: its passwords are kept only in that directory's demo.json, and ${path.join(database.dataDir, 'demo.json')} does not hold them. Run the command with that DATA_DIR, or sign in with an account of your own (npm run cli -- user create).`,
    );
  }, 240_000);
});
