import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AuthTokenResult } from '@entry/domain';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { type Clock, type Config, loadConfig } from '../../src/config.ts';
import type { AppContext } from '../../src/context.ts';
import { openDatabase } from '../../src/db/index.ts';
import type { DemoData } from '../../src/demo/demo-file.ts';
import { ensureDemoData } from '../../src/demo/seed.ts';
import { generateSigningKeyPem } from '../../src/services/keys.ts';
import type { Mailer, OutgoingMail } from '../../src/services/mail-transports.ts';
import type { FailureCountStore } from '../../src/services/rate-limit.ts';
import { totpCodeAt, totpPeriodSeconds, totpStepAt } from '../../src/services/second-factor-secrets.ts';

/** A clock the test moves: locks, lifetimes and the refresh grace pass without sleeping. */
export class TestClock implements Clock {
  #now: number;

  constructor(start: Date = new Date('2030-01-15T12:00:00.000Z')) {
    this.#now = start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  advance(ms: number): void {
    this.#now += ms;
  }

  advanceMinutes(minutes: number): void {
    this.advance(minutes * 60_000);
  }
}

/** Keeps every mail in memory; tests that need the real SMTP path use `startSmtpServer`. */
class CapturingMailer implements Mailer {
  readonly sent: OutgoingMail[] = [];

  async send(mail: OutgoingMail): Promise<void> {
    this.sent.push(mail);
  }
}

export const testDatabaseUrl = process.env.TEST_DATABASE_URL || undefined;
export const databaseLabel = testDatabaseUrl === undefined ? 'PGlite' : 'PostgreSQL';

/** One database per test file (or per server group), dropped at the end; files run in parallel. */
export interface TestDatabase {
  /** DATABASE_URL for PostgreSQL; undefined on PGlite (DATA_DIR is used). */
  databaseUrl: string | undefined;
  dataDir: string;
  authSigningKey: string | undefined;
  pepper: string;
  drop(): Promise<void>;
}

async function waitForNoConnections(client: pg.Client, database: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const { rows } = await client.query<{ count: string }>(
      'SELECT count(*) FROM pg_stat_activity WHERE datname = $1',
      [database],
    );
    if (rows[0]?.count === '0') return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'entry-test-'));
  const pepper = `test-pepper-${Math.random().toString(36).slice(2)}-${Date.now()}`;
  if (testDatabaseUrl === undefined) {
    return {
      databaseUrl: undefined,
      dataDir,
      authSigningKey: undefined,
      pepper,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir,
    authSigningKey: generateSigningKeyPem(),
    pepper,
    drop: async () => {
      const client = new pg.Client({ connectionString: testDatabaseUrl });
      await client.connect();
      // A closed pool's connections finish closing after pool.end() resolves; forcing them out
      // then would fail them with an error nobody listens to, so their ends are awaited first.
      await waitForNoConnections(client, name);
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServer {
  app: FastifyInstance;
  ctx: AppContext;
  config: Config;
  clock: TestClock;
  /** e.g. `http://127.0.0.1:41234` */
  baseUrl: string;
  demo: DemoData;
  /** The in-memory mailer, unless the test passed its own or set SMTP_URL. */
  mailer: CapturingMailer;
  database: TestDatabase;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Extra environment, e.g. `{ SMTP_URL: smtp.url }` or `{ RATE_LIMIT_FAILURES: '5' }`. */
  env?: Record<string, string | undefined>;
  clock?: TestClock;
  mailer?: Mailer;
  /** A second instance on the same database (PostgreSQL only: PGlite is single-process). */
  sharedDatabase?: TestDatabase;
  /** A web dist directory; by default a temporary one with a one-line index.html. */
  webDistDir?: string;
  /** The per-IP failure counts, e.g. a Redis store with a key prefix of the test's own. */
  failureStore?: FailureCountStore;
  /** Receives the server's log lines (JSON) from warn up; without it the server logs nothing. */
  logLines?: string[];
}

/** A web dist directory with a one-line index.html and script, in `dataDir`. */
export function makeWebDist(dataDir: string): string {
  const dist = path.join(dataDir, 'web-dist');
  mkdirSync(path.join(dist, 'assets'), { recursive: true });
  writeFileSync(
    path.join(dist, 'index.html'),
    '<!doctype html><html lang="en"><head><title>Entry</title></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log("app");');
  return dist;
}

/** A port nothing listens on at the moment, for a server process of the test's own. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Starts the real server on port 0 with a controllable clock and the demo data, and
 * returns where it listens. Each call gets a database of its own unless `sharedDatabase` is given.
 */
export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const ownsDatabase = options.sharedDatabase === undefined;
  const database = options.sharedDatabase ?? (await createTestDatabase());
  const clock = options.clock ?? new TestClock();
  const config = loadConfig(
    {
      PORT: '8080',
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl,
      AUTH_SIGNING_KEY: database.authSigningKey,
      KBA_PEPPER: database.pepper,
      LOG_LEVEL: options.logLines === undefined ? 'silent' : 'warn',
      WEB_DIST_DIR: options.webDistDir ?? makeWebDist(database.dataDir),
      ...options.env,
    },
    clock,
  );
  const capturing = new CapturingMailer();
  const handle = await openDatabase(config);
  const app = await buildApp(config, {
    database: handle,
    ...(config.smtpUrl === undefined ? { mailer: options.mailer ?? capturing } : {}),
    ...(options.failureStore === undefined ? {} : { failureStore: options.failureStore }),
    ...(options.logLines === undefined
      ? { logger: false as const }
      : { logStream: { write: (line: string) => options.logLines?.push(line) } }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  const { demo } = await ensureDemoData(handle.db, { config, pepper: app.ctx.pepper });
  return {
    app,
    ctx: app.ctx,
    config,
    clock,
    baseUrl: `http://127.0.0.1:${address.port}`,
    demo,
    mailer: capturing,
    database,
    async close() {
      await app.close();
      await handle.close();
      if (ownsDatabase) await database.drop();
    },
  };
}

export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** One HTTP call with a JSON body (or none) and the parsed JSON answer. */
export async function call<T = Record<string, unknown>>(
  baseUrl: string,
  method: string,
  urlPath: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${baseUrl}${urlPath}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/**
 * `call` from the loopback address `from` (any of 127.0.0.0/8): to the server, each address is a
 * client of its own, as the many addresses of a distributed burst are.
 */
export function callFrom<T = Record<string, unknown>>(
  from: string,
  baseUrl: string,
  method: string,
  urlPath: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${baseUrl}${urlPath}`,
      { method, headers, localAddress: from, agent: false },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: responseHeaders,
            body: (text === '' ? undefined : JSON.parse(text)) as T,
          });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The `index`th of many distinct loopback addresses (127.1.0.1, 127.1.0.2, ...). */
export const loopbackAddress = (index: number) => `127.1.${Math.floor(index / 250)}.${(index % 250) + 1}`;

/** The last time step each clock's server accepted of each secret: a step is accepted once. */
const usedSteps = new WeakMap<TestClock, Map<string, number>>();

/**
 * The authenticator code of `secret` at the server's clock. When the code of this step was taken
 * already, the clock moves to the next step first (at most 30 s), as a person would wait for it.
 */
export function nextTotpCode(server: Pick<TestServer, 'clock'>, secret: string): string {
  const used = usedSteps.get(server.clock) ?? new Map<string, number>();
  usedSteps.set(server.clock, used);
  const last = used.get(secret);
  if (last !== undefined && totpStepAt(server.clock.now()) <= last) {
    server.clock.advance((last + 1) * totpPeriodSeconds * 1000 - server.clock.now().getTime());
  }
  const step = totpStepAt(server.clock.now());
  used.set(secret, step);
  return totpCodeAt(secret, server.clock.now());
}

/** The second step of a password sign-in (or a step-up) with the authenticator app of `secret`. */
export async function passSecondFactor(
  server: Pick<TestServer, 'baseUrl' | 'clock'>,
  kind: 'admin' | 'customer',
  token: string,
  secret: string,
): Promise<AuthTokenResult> {
  const response = await call<AuthTokenResult>(
    server.baseUrl,
    'POST',
    `/api/auth/v1/${kind}/sign-in/second-factor`,
    { token, body: { method: 'totp', code: nextTotpCode(server, secret) } },
  );
  if (response.status !== 200) throw new Error(`the second step answered ${response.status}`);
  return response.body;
}

/** Signs the demo admin in with its password, then its authenticator app; a refusal fails the test. */
export async function signInAdmin(
  server: Pick<TestServer, 'baseUrl' | 'demo' | 'clock'>,
): Promise<AuthTokenResult> {
  const { username, password, totpSecret } = server.demo.admin;
  const response = await call<AuthTokenResult>(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
    body: { username, password },
  });
  if (response.status !== 200) throw new Error(`the admin sign-in answered ${response.status}`);
  return passSecondFactor(server, 'admin', response.body.accessToken, totpSecret);
}
