import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { errorBodySchema } from '@entry/domain';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../src/db/index.ts';
import { ensureDemoData } from '../src/demo/seed.ts';
import { createTestDatabase, databaseLabel, TestClock, type TestDatabase } from './helpers/server.ts';

interface LogEntry {
  reqId?: string;
  msg?: string;
  req?: { method: string; url: string; remoteAddress: string };
  res?: { statusCode: number };
  responseTime?: number;
}

describe(`health, readiness and logs (${databaseLabel})`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let webDist: string;
  const apps: FastifyInstance[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    webDist = path.join(database.dataDir, 'web-dist');
    mkdirSync(webDist, { recursive: true });
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Entry</title>');
    handle = await openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
  });
  afterAll(async () => {
    for (const app of apps) await app.close();
    await handle?.close().catch(() => undefined);
    await database?.drop();
  });

  /** The real app in-process on the file's database; `logLines` holds the JSON it logged. */
  async function startApp(env: Record<string, string> = {}) {
    const config = loadConfig(
      {
        DATA_DIR: database.dataDir,
        DATABASE_URL: database.databaseUrl,
        AUTH_SIGNING_KEY: database.authSigningKey,
        KBA_PEPPER: database.pepper,
        WEB_DIST_DIR: webDist,
        LOG_LEVEL: 'info',
        MAIL_TRANSPORT: 'log',
        ...env,
      },
      new TestClock(),
    );
    const logLines: string[] = [];
    const app = await buildApp(config, {
      database: handle,
      logStream: { write: (line) => logLines.push(line) },
    });
    apps.push(app);
    return { app, logLines };
  }

  it('answers liveness and readiness while the database is current', async () => {
    const { app } = await startApp();
    const health = await app.inject({ method: 'GET', url: '/api/health' });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    const ready = await app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
    expect(ready.headers['cache-control']).toBe('no-store');
  });

  it('is not ready (503, error body naming the migration) while a migration is missing', async () => {
    const { app } = await startApp();
    await handle.db.execute(sql`DELETE FROM schema_migrations WHERE name = '0200_operations'`);
    try {
      const ready = await app.inject({ method: 'GET', url: '/api/ready' });
      expect(ready.statusCode).toBe(503);
      const body = errorBodySchema.parse(ready.json());
      expect(body.errorCode).toBe('ServiceUnavailable');
      expect(body.errors[0]).toEqual({
        field: 'database',
        message: expect.stringContaining('0200_operations'),
      });
      expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    } finally {
      await handle.db.execute(sql`INSERT INTO schema_migrations (name) VALUES ('0200_operations')`);
    }
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200);
  });

  it('logs JSON lines with the request id and without tokens, codes, cookies or authorization', async () => {
    const { app, logLines } = await startApp();
    const { demo } = await ensureDemoData(handle.db, {
      config: app.ctx.config,
      pepper: app.ctx.pepper,
    });
    const secrets = [
      'secret-bearer-value',
      'secret-cookie-value',
      'secret-session-value',
      '654321',
      demo.identityTokens.direct,
    ];
    const headers = {
      authorization: 'Bearer secret-bearer-value',
      cookie: 'entry-refresh=secret-cookie-value',
      'session-guid': 'secret-session-value',
    };
    // A letter link as the browser opens it: the identity token is the first path segment.
    const read = await app.inject({ method: 'GET', url: `/${demo.identityTokens.direct}/4/77`, headers });
    expect(read.statusCode).toBe(200);
    const mfa = await app.inject({
      method: 'POST',
      url: '/api/auth/v1/consumer/sign-in/mfa?mfaCode=654321',
      headers,
    });
    expect(mfa.statusCode).toBe(401);

    const logged = logLines.join('');
    for (const secret of secrets) expect(logged).not.toContain(secret);
    const entries = logLines.map((line) => JSON.parse(line) as LogEntry);
    // One line per request, when it ends: what was asked, by whom, and how it was answered.
    for (const [response, statusCode] of [
      [read, 200],
      [mfa, 401],
    ] as const) {
      const requestId = response.headers['x-request-id'];
      expect(requestId).toEqual(expect.any(String));
      expect(entries.filter((entry) => entry.reqId === requestId)).toEqual([
        expect.objectContaining({
          msg: 'request completed',
          req: expect.objectContaining({ method: expect.any(String), remoteAddress: expect.any(String) }),
          res: { statusCode },
          responseTime: expect.any(Number),
        }),
      ]);
    }
    expect(entries.map((entry) => entry.req?.url).filter(Boolean)).toEqual([
      '/[redacted]/4/77',
      '/api/auth/v1/consumer/sign-in/mfa?mfaCode=[redacted]',
    ]);
  });

  it('logs the start of each request too at LOG_LEVEL=debug, redacted the same way', async () => {
    const { app, logLines } = await startApp({ LOG_LEVEL: 'debug' });
    const mfa = await app.inject({ method: 'POST', url: '/api/auth/v1/consumer/sign-in/mfa?mfaCode=654321' });
    const entries = logLines
      .map((line) => JSON.parse(line) as LogEntry)
      .filter((entry) => entry.reqId === mfa.headers['x-request-id']);
    expect(entries.map((entry) => entry.msg)).toEqual(['incoming request', 'request completed']);
    expect(entries.map((entry) => entry.req?.url)).toEqual([
      '/api/auth/v1/consumer/sign-in/mfa?mfaCode=[redacted]',
      '/api/auth/v1/consumer/sign-in/mfa?mfaCode=[redacted]',
    ]);
  });

  it('leaves the probes out of the request log, so load balancers do not flood it', async () => {
    const { app, logLines } = await startApp();
    await app.inject({ method: 'GET', url: '/api/health' });
    await app.inject({ method: 'GET', url: '/api/ready' });
    expect(logLines).toEqual([]);
  });

  it.each([
    ['unset', {}, '127.0.0.1'],
    ['the proxy address', { TRUST_PROXY: '127.0.0.1' }, '203.0.113.9'],
  ])(
    'takes the client address from X-Forwarded-For only when TRUST_PROXY names the proxy (%s)',
    async (_case, env, clientAddress) => {
      const { app, logLines } = await startApp(env);
      await app.inject({
        method: 'POST',
        url: '/api/auth/v1/admin/sign-in',
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      const entries = logLines.map((line) => JSON.parse(line) as { req?: { remoteAddress: string } });
      expect(entries.map((entry) => entry.req?.remoteAddress).filter(Boolean)).toEqual([clientAddress]);
    },
  );

  it.each([
    ['unset', {}, '127.0.0.1', false],
    ['a list, the request from a proxy on it', { TRUST_PROXY: '10.0.0.0/8' }, '10.1.2.3', true],
    ['a list, the request from elsewhere', { TRUST_PROXY: '10.0.0.0/8' }, '198.51.100.7', false],
    ['a hop count, which trusts whoever connects', { TRUST_PROXY: '1' }, '198.51.100.7', true],
  ])('takes X-Request-Id only from a trusted proxy (TRUST_PROXY %s)', async (_case, env, peer, kept) => {
    const { app } = await startApp(env);
    const response = await app.inject({
      method: 'GET',
      url: '/api/auth/v1/access/nobody',
      remoteAddress: peer,
      headers: { 'x-request-id': 'proxy-given-id' },
    });
    expect(response.headers['x-request-id'] === 'proxy-given-id').toBe(kept);
  });

  it.skipIf(databaseLabel === 'PGlite')(
    'keeps serving, and logs the loss, when PostgreSQL drops its idle connections',
    async () => {
      const { app, logLines } = await startApp();
      // Parallel queries make the pool open several connections, which then sit idle.
      await Promise.all(Array.from({ length: 4 }, () => handle.db.execute(sql`SELECT 1`)));
      const url = new URL(database.databaseUrl ?? '');
      const dropped = (await handle.db.execute(
        sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${url.pathname.slice(1)} AND pid <> pg_backend_pid()`,
      )) as { rows: unknown[] };
      expect(dropped.rows.length).toBeGreaterThan(0);
      await expect.poll(() => logLines.some((line) => line.includes('database connection lost'))).toBe(true);
      expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200);
    },
  );

  // Last: it closes the file's database.
  it('is not ready (503) when the database does not answer, while liveness still answers', async () => {
    const { app } = await startApp();
    await handle.close();
    const ready = await app.inject({ method: 'GET', url: '/api/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      errorCode: 'ServiceUnavailable',
      errors: [{ field: 'database', message: 'The database does not answer.' }],
    });
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
  });
});
