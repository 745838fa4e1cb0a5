import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnavailableError } from '../src/db/availability.ts';
import { executeStatement, statement } from '../src/db/database.ts';
import { openDatabase } from '../src/db/index.ts';
import { maxWaitingCalls, PgliteThread } from '../src/db/pglite-thread.ts';
import { DatabaseStartError, waitForPostgres } from '../src/db/postgres-wait.ts';
import { FaultProxy } from './helpers/fault-proxy.ts';
import {
  call,
  createTestDatabase,
  databaseLabel,
  freePort,
  startTestServer,
  type TestDatabase,
  type TestServer,
  testDatabaseUrl,
} from './helpers/server.ts';

/**
 * The server's dependencies fail as an operator would see them fail: PostgreSQL stopped or frozen
 * (a proxy the test controls stands in front of it), Redis killed or frozen (a redis-server of the
 * test's own), PostgreSQL absent at start, and the embedded database's thread flooded.
 */

const signIn = (server: TestServer, password: string) =>
  call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
    body: { username: server.demo.admin.username, password },
  });

const unknownUserSignIn = (server: TestServer, index: number) =>
  call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
    body: { username: `nobody-${index}`, password: 'not the password' },
  });

async function timed<T>(work: () => Promise<T>): Promise<{ answer: T; ms: number }> {
  const started = performance.now();
  const answer = await work();
  return { answer, ms: performance.now() - started };
}

const readiness = async (server: TestServer) => (await call(server.baseUrl, 'GET', '/api/ready')).body;

const logMessages = (lines: string[]) => lines.map((line) => (JSON.parse(line) as { msg: string }).msg);

function withPort(connectionString: string, port: number): string {
  const url = new URL(connectionString);
  url.port = String(port);
  return url.toString();
}

describe.skipIf(testDatabaseUrl === undefined)('while PostgreSQL is stopped or frozen', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let server: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.databaseUrl ?? '');
    proxy = new FaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.start();
    server = await startTestServer({
      sharedDatabase: database,
      env: {
        DATABASE_URL: withPort(database.databaseUrl ?? '', proxy.port),
        DATABASE_STATEMENT_TIMEOUT_MS: '500',
      },
      logLines,
    });
  });
  afterAll(async () => {
    proxy?.thaw();
    await proxy?.start().catch(() => undefined);
    await server?.close();
    await proxy?.stop();
    await database?.drop();
  });

  const expectRefusedAtOnce = async () => {
    const { answer, ms } = await timed(() =>
      Promise.all(Array.from({ length: 20 }, () => signIn(server, server.demo.admin.password))),
    );
    for (const response of answer) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.body).toMatchObject({ errorCode: 'ServiceUnavailable' });
    }
    expect(ms).toBeLessThan(1000);
    expect((await call(server.baseUrl, 'GET', '/api/ready')).status).toBe(503);
    expect((await call(server.baseUrl, 'GET', '/api/health')).status).toBe(200);
  };

  const expectBack = async () => {
    await expect.poll(() => readiness(server), { timeout: 15_000 }).toEqual({ status: 'ready' });
    expect((await signIn(server, server.demo.admin.password)).status).toBe(200);
  };

  it('answers 503 with Retry-After at once while it is stopped, and serves again when it is back', async () => {
    expect((await signIn(server, server.demo.admin.password)).status).toBe(200);
    logLines.length = 0;
    await proxy.stop();

    const first = await signIn(server, server.demo.admin.password);
    expect(first.status).toBe(503);
    expect(first.body).toEqual({
      errorCode: 'ServiceUnavailable',
      message: 'The service is briefly unavailable. Please try again in a moment.',
      errors: [],
    });
    await expectRefusedAtOnce();

    await proxy.start();
    await expectBack();
    // One line when it went, one when it came back; no driver object in either.
    const messages = logMessages(logLines);
    expect(messages.filter((msg) => msg.startsWith('database unreachable'))).toHaveLength(1);
    expect(messages.filter((msg) => msg === 'database answers again')).toHaveLength(1);
    expect(logLines.filter((line) => line.length >= 1000)).toEqual([]);
  });

  it('bounds the wait on a frozen database by the statement timeout, then refuses at once', async () => {
    expect((await signIn(server, server.demo.admin.password)).status).toBe(200);
    proxy.freeze();

    const { answer, ms } = await timed(() => signIn(server, server.demo.admin.password));
    expect(answer.status).toBe(503);
    expect(ms).toBeLessThan(5000);
    // The failure is checked on a connection of its own before the database counts as away.
    await expect.poll(() => server.ctx.dependencies.databaseUnavailable(), { timeout: 5000 }).toBeDefined();
    await expectRefusedAtOnce();

    proxy.thaw();
    await expectBack();
  });
});

describe.skipIf(testDatabaseUrl === undefined)('while PostgreSQL is frozen, with the default bounds', () => {
  let database: TestDatabase;
  let proxy: FaultProxy;
  let server: TestServer;
  const logLines: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    const direct = new URL(database.databaseUrl ?? '');
    proxy = new FaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.start();
    server = await startTestServer({
      sharedDatabase: database,
      env: { DATABASE_URL: withPort(database.databaseUrl ?? '', proxy.port), LOG_LEVEL: 'info' },
      logLines,
    });
  });
  afterEach(() => {
    proxy?.thaw();
  });
  afterAll(async () => {
    proxy?.thaw();
    await server?.close();
    await proxy?.stop();
    await database?.drop();
  });

  it('answers a sign-in 503 within the sign-in bound, not the longer statement timeout', async () => {
    expect(server.config.databaseStatementTimeoutMs).toBe(10_000);
    expect(server.config.databaseSignInTimeoutMs).toBe(3000);
    expect((await signIn(server, server.demo.admin.password)).status).toBe(200);
    logLines.length = 0;
    proxy.freeze();

    const { answer, ms } = await timed(() => signIn(server, server.demo.admin.password));
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.body).toMatchObject({ errorCode: 'ServiceUnavailable' });
    // The server's own measure of the call: the statement was given up at the sign-in bound.
    const completed = logLines
      .map((line) => JSON.parse(line) as { msg: string; responseTime?: number; res?: { statusCode: number } })
      .find((line) => line.msg === 'request completed' && line.res?.statusCode === 503);
    expect(completed?.responseTime).toBeGreaterThanOrEqual(3000);
    expect(completed?.responseTime).toBeLessThan(5000);
    expect(ms).toBeLessThan(8000);
    // The timed-out statement marks the database away, once its own probe has failed too.
    await expect.poll(() => server.ctx.dependencies.databaseUnavailable(), { timeout: 5000 }).toBeDefined();
    proxy.thaw();
    await expect.poll(() => readiness(server), { timeout: 15_000 }).toEqual({ status: 'ready' });
  });

  it('keeps the longer statement timeout outside sign-ins (imports, exports, background work)', async () => {
    const handle = await openDatabase({
      databaseUrl: withPort(database.databaseUrl ?? '', proxy.port),
      dataDir: database.dataDir,
      databaseSignInTimeoutMs: 500,
    });
    try {
      const select = statement('SELECT 1 AS one');
      // Two pooled connections, one for each statement below.
      await Promise.all([executeStatement(handle.db, select, []), executeStatement(handle.db, select, [])]);
      proxy.freeze();
      const unbounded = executeStatement(handle.db, select, []).then(
        () => 'answered',
        (error: unknown) => `failed: ${String(error)}`,
      );
      const bounded = handle.withSignInBound(() => executeStatement(handle.db, select, []));
      await expect(bounded).rejects.toThrow('Query read timeout');
      // Still waiting on the frozen database when the sign-in's statement has already given up.
      expect(await Promise.race([unbounded, Promise.resolve('still waiting')])).toBe('still waiting');
      proxy.thaw();
      expect(await unbounded).toBe('answered');
    } finally {
      proxy.thaw();
      await handle.close();
    }
  });
});

describe(`while Redis is killed or frozen (${databaseLabel})`, () => {
  const limit = 3;
  let redisPort: number;
  let redisProcess: ChildProcess | undefined;
  let redis: Redis;
  let server: TestServer;
  const logLines: string[] = [];

  async function startRedis(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    redisProcess = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  }

  async function killRedis(): Promise<void> {
    const child = redisProcess;
    redisProcess = undefined;
    if (child === undefined || child.exitCode !== null) return;
    child.kill('SIGKILL');
    await once(child, 'exit');
  }

  /** The failures Redis holds for the test's address, over every window. */
  async function sharedFailures(): Promise<number> {
    const keys = await redis.keys('entry:failures:127.0.0.1:*');
    const values = keys.length === 0 ? [] : await redis.mget(...keys);
    return values.reduce((sum, value) => sum + Number(value ?? 0), 0);
  }

  beforeAll(async () => {
    redisPort = await freePort();
    await startRedis();
    redis = new Redis(redisPort, '127.0.0.1', { maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => undefined);
    server = await startTestServer({
      env: { REDIS_URL: `redis://127.0.0.1:${redisPort}`, RATE_LIMIT_FAILURES: String(limit) },
      logLines,
    });
  });
  afterEach(() => {
    redisProcess?.kill('SIGCONT');
  });
  afterAll(async () => {
    await server?.close();
    redis?.disconnect();
    await killRedis();
  });

  it('counts in memory without waiting while Redis is frozen, then adds those counts to Redis', async () => {
    server.clock.advanceMinutes(30);
    expect((await unknownUserSignIn(server, 0)).status).toBe(401);
    expect(await sharedFailures()).toBe(1);

    redisProcess?.kill('SIGSTOP');
    for (let index = 1; index <= limit; index += 1) {
      const { answer, ms } = await timed(() => unknownUserSignIn(server, index));
      expect(answer.status).toBe(401);
      expect(ms).toBeLessThan(1000);
    }
    // The budget still holds, per instance, while the counts are its own.
    const refused = await unknownUserSignIn(server, limit + 1);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).not.toBeNull();
    const degraded = await call(server.baseUrl, 'GET', '/api/ready');
    expect(degraded.status).toBe(200);
    expect(degraded.body).toEqual({ status: 'degraded', reasons: [expect.stringContaining('Redis')] });

    redisProcess?.kill('SIGCONT');
    await expect.poll(() => readiness(server), { timeout: 10_000 }).toEqual({ status: 'ready' });
    // What was counted alone is added; the one count sent just as Redis froze may also have landed
    // once Redis woke, so a failure is counted twice at worst, never lost.
    const shared = await sharedFailures();
    expect(shared).toBeGreaterThanOrEqual(1 + limit);
    expect(shared).toBeLessThanOrEqual(2 + limit);
    const messages = logMessages(logLines);
    expect(messages.filter((msg) => msg.startsWith('Redis unreachable'))).toHaveLength(1);
    expect(messages.filter((msg) => msg === 'failure counts are shared through Redis again')).toHaveLength(1);
  });

  it('keeps signing in at normal speed while Redis is down, and shares again once it is restarted', async () => {
    server.clock.advanceMinutes(30);
    await killRedis();
    const signedIn = await timed(() => signIn(server, server.demo.admin.password));
    expect(signedIn.answer.status).toBe(200);
    expect(signedIn.ms).toBeLessThan(1000);
    const failed = await timed(() => unknownUserSignIn(server, 100));
    expect(failed.answer.status).toBe(401);
    expect(failed.ms).toBeLessThan(1000);
    expect(await readiness(server)).toMatchObject({ status: 'degraded' });

    await startRedis();
    await expect.poll(() => readiness(server), { timeout: 10_000 }).toEqual({ status: 'ready' });
    expect(await sharedFailures()).toBe(1);
  });
});

describe('start-up without PostgreSQL', () => {
  it('waits for PostgreSQL, saying so once, then gives up with one line', async () => {
    const port = await freePort();
    const said: string[] = [];
    const waiting = waitForPostgres(`postgres://postgres@127.0.0.1:${port}/test`, 1, (line) =>
      said.push(line),
    );
    await expect(waiting).rejects.toThrow(DatabaseStartError);
    await expect(waiting).rejects.toThrow(`PostgreSQL at 127.0.0.1:${port} did not answer within 1 seconds`);
    expect(said).toEqual([`waiting for PostgreSQL at 127.0.0.1:${port} ...`]);
  });

  it.skipIf(testDatabaseUrl === undefined)('starts once PostgreSQL comes', async () => {
    const direct = new URL(testDatabaseUrl ?? '');
    const proxy = new FaultProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    await proxy.start();
    await proxy.stop();
    const said: string[] = [];
    const waiting = waitForPostgres(withPort(testDatabaseUrl ?? '', proxy.port), 30, (line) =>
      said.push(line),
    );
    await expect.poll(() => said.length).toBe(1);
    await proxy.start();
    await waiting;
    await proxy.stop();
    expect(said).toEqual([
      `waiting for PostgreSQL at 127.0.0.1:${proxy.port} ...`,
      `PostgreSQL at 127.0.0.1:${proxy.port} answers`,
    ]);
  });

  it('exits 1 with the message and no stack trace when PostgreSQL never comes', async () => {
    const port = await freePort();
    const serverRoot = path.resolve(import.meta.dirname, '..');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: serverRoot,
      env: {
        ...process.env,
        DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${port}/test`,
        DATABASE_WAIT_SECONDS: '1',
        MAIL_TRANSPORT: 'log',
        KBA_PEPPER: 'a pepper for this test only',
        DATA_DIR: mkdtempSync(path.join(tmpdir(), 'entry-no-postgres-')),
        PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(`waiting for PostgreSQL at 127.0.0.1:${port} ...`);
    expect(lines[1]).toMatch(/^PostgreSQL at 127\.0\.0\.1:\d+ did not answer within 1 seconds/);
    expect(stderr).not.toContain('secret');
  });
});

describe('the embedded database under a flood', () => {
  it(`refuses new work past ${maxWaitingCalls} waiting calls instead of queueing it`, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'entry-flood-'));
    const thread = await PgliteThread.open({ path: path.join(dir, 'pglite'), postgresqlconf: [] });
    try {
      const extra = 25;
      const answers = await Promise.allSettled(
        Array.from({ length: maxWaitingCalls + extra }, () => thread.query('SELECT 1')),
      );
      const refused = answers.filter((answer) => answer.status === 'rejected');
      expect(refused).toHaveLength(extra);
      for (const answer of refused) expect(answer.reason).toBeInstanceOf(DatabaseUnavailableError);
      expect((await thread.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await thread.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
