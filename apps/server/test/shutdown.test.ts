import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { closeWithin } from '../src/cli/serve.ts';
import { loadConfig } from '../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../src/db/index.ts';
import {
  createTestDatabase,
  databaseLabel,
  freePort,
  startTestServer,
  TestClock,
  type TestDatabase,
} from './helpers/server.ts';

const serverRoot = path.resolve(import.meta.dirname, '..');

function databaseEnv(database: TestDatabase, webDist: string): Record<string, string> {
  const env: Record<string, string> = {
    DATA_DIR: database.dataDir,
    KBA_PEPPER: database.pepper,
    WEB_DIST_DIR: webDist,
    MIGRATE: '1',
  };
  if (database.databaseUrl !== undefined) env.DATABASE_URL = database.databaseUrl;
  if (database.authSigningKey !== undefined) env.AUTH_SIGNING_KEY = database.authSigningKey;
  return env;
}

/** Resolves once `check` passes, re-checking on each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * A client that opens a request and sends its headers a byte a second, never finishing them.
 * Resolves once the server has read its first bytes; `closed` resolves with what the server sent.
 */
async function slowHeaderClient(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => undefined);
  socket.write('GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  const trickle = setInterval(() => socket.write('a'), 1000);
  const closed = once(socket, 'close').then(() => {
    clearInterval(trickle);
    return received;
  });
  // The server reads a socket's bytes before it answers a request that arrives after them.
  expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
  return { socket, closed };
}

type Outcome =
  | { kind: 'whole'; status: number; connection: string | undefined }
  | { kind: 'broken'; detail: string }
  | { kind: 'unanswered'; code: string | undefined };

/** One request on `agent`: a whole answer, an answer cut short, or none at all (and why). */
function send(agent: Agent, port: number, method: string, urlPath: string, body?: unknown): Promise<Outcome> {
  return new Promise((resolve) => {
    let answered = false;
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        agent,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', () => undefined);
        response.on('close', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            if (!response.complete) throw new Error('the answer ended early');
            JSON.parse(text);
            resolve({
              kind: 'whole',
              status: response.statusCode ?? 0,
              connection: response.headers.connection,
            });
          } catch (error) {
            resolve({ kind: 'broken', detail: `${response.statusCode} ${String(error)}: ${text}` });
          }
        });
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (!answered) resolve({ kind: 'unanswered', code: error.code });
    });
    request.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe(`graceful shutdown (${databaseLabel})`, () => {
  let database: TestDatabase;
  let webDist: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    webDist = path.join(database.dataDir, 'web-dist');
    mkdirSync(webDist, { recursive: true });
    writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Entry</title>');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('finishes a request in flight, refuses new connections, then closes', async () => {
    const config = loadConfig({ ...databaseEnv(database, webDist), LOG_LEVEL: 'silent' }, new TestClock());
    const handle: DatabaseHandle = await openDatabase(config);
    const app = await buildApp(config, { database: handle, logger: false });
    let releaseSlowRequest: () => void = () => undefined;
    let slowRequestStarted = false;
    // A route of this test only: it answers when the test says so.
    app.get('/api/test/slow', async () => {
      slowRequestStarted = true;
      await new Promise<void>((resolve) => {
        releaseSlowRequest = resolve;
      });
      return { finished: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const baseUrl = `http://127.0.0.1:${address.port}`;

    try {
      const inFlight = fetch(`${baseUrl}/api/test/slow`);
      await until(() => slowRequestStarted);

      let closed = false;
      const closing = app.close().then(() => {
        closed = true;
      });
      await until(() => !app.server.listening);
      await expect(fetch(`${baseUrl}/api/health`)).rejects.toThrow();
      expect(closed).toBe(false);

      releaseSlowRequest();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(response.headers.get('connection')).toBe('close');
      expect(await response.json()).toEqual({ finished: true });
      await closing;
      expect(closed).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('cuts the connections of requests that outlast the drain, and then closes', async () => {
    const config = loadConfig({ ...databaseEnv(database, webDist), LOG_LEVEL: 'silent' }, new TestClock());
    const handle: DatabaseHandle = await openDatabase(config);
    const app = await buildApp(config, { database: handle, logger: false });
    let hangingRequestStarted = false;
    // A route of this test only: it never answers, as a request stuck on a frozen dependency.
    app.get('/api/test/hanging', async () => {
      hangingRequestStarted = true;
      await new Promise(() => undefined);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const hanging = fetch(`http://127.0.0.1:${address.port}/api/test/hanging`);
      await until(() => hangingRequestStarted);
      await closeWithin(app, 200);
      await expect(hanging).rejects.toThrow();
    } finally {
      await handle.close();
    }
  });

  /** `main.ts serve` in a process of its own on a free port, its output piped to this test. */
  async function startServe(env: Record<string, string> = {}) {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: serverRoot,
      env: {
        ...process.env,
        ...databaseEnv(database, webDist),
        PORT: String(port),
        LOG_LEVEL: 'info',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    return { port, child, exited };
  }

  /** `startServe`, resolved once the server listens; `output()` is all it has written so far. */
  async function startListening(env: Record<string, string> = {}) {
    const started = await startServe(env);
    const { child, exited } = started;
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    while (!output.includes('Server listening')) {
      if (child.exitCode !== null) throw new Error(`serve exited early:\n${output}`);
      await Promise.race([once(child.stdout ?? child, 'data'), exited]);
    }
    return { ...started, output: () => output };
  }

  it('`serve` stops on SIGTERM with exit code 0 while a client holds a keep-alive connection', async () => {
    const { port, child, exited, output } = await startListening();
    try {
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(await health.json()).toEqual({ status: 'ok' });

      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      const logLines = output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      const messages = logLines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toContain('shutting down');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('`serve` under load on SIGTERM: every answer is whole, and it exits within its grace', async () => {
    const graceMs = 5000;
    const { port, child, exited, output } = await startListening({
      SHUTDOWN_GRACE_SECONDS: String(graceMs / 1000),
      RATE_LIMIT_FAILURES: '1000000',
    });
    const agent = new Agent({ keepAlive: true });
    const outcomes: { outcome: Outcome; afterSignal: boolean }[] = [];
    let signalled = false;
    let markLoaded: () => void = () => undefined;
    const loaded = new Promise<void>((resolve) => {
      markLoaded = resolve;
    });
    // Keep-alive clients that each send the next request as soon as the last is answered, until
    // the server no longer takes connections: quick probes, and sign-ins that wait for a hash.
    const client = async (index: number) => {
      for (let turn = 0; ; turn += 1) {
        const outcome =
          (index + turn) % 2 === 0
            ? await send(agent, port, 'GET', '/api/health')
            : await send(agent, port, 'POST', '/api/auth/v1/admin/sign-in', {
                username: `nobody-${index}`,
                password: 'not the password',
              });
        if (outcome.kind === 'unanswered' && outcome.code === 'ECONNREFUSED') return;
        outcomes.push({ outcome, afterSignal: signalled });
        if (outcomes.length === 40) markLoaded();
      }
    };
    try {
      const clients = Array.from({ length: 8 }, (_, index) => client(index));
      await Promise.race([loaded, Promise.all(clients)]);
      expect(outcomes.length, output()).toBeGreaterThanOrEqual(40);

      const signalAt = performance.now();
      child.kill('SIGTERM');
      signalled = true;
      const [code] = await exited;
      const exitedAfterMs = performance.now() - signalAt;
      await Promise.all(clients);

      expect(code, output()).toBe(0);
      expect(exitedAfterMs).toBeLessThan(graceMs);
      expect(outcomes.filter(({ outcome }) => outcome.kind === 'broken')).toEqual([]);
      const answeredAfterSignal = outcomes.flatMap(({ outcome, afterSignal }) =>
        afterSignal && outcome.kind === 'whole' ? [outcome] : [],
      );
      // Requests in flight when the signal came were answered, each ending its connection.
      expect(answeredAfterSignal.filter((outcome) => outcome.connection === 'close')).not.toEqual([]);
    } finally {
      agent.destroy();
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('`serve` exits within its grace while a client sends its headers a byte a second', async () => {
    const graceMs = 3000;
    const { port, child, exited, output } = await startListening({
      SHUTDOWN_GRACE_SECONDS: String(graceMs / 1000),
    });
    try {
      const slow = await slowHeaderClient(port);
      const signalAt = performance.now();
      child.kill('SIGTERM');
      const [code] = await exited;
      const exitedAfterMs = performance.now() - signalAt;

      expect(code, output()).toBe(0);
      expect(exitedAfterMs).toBeLessThan(graceMs);
      expect(await slow.closed).toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('`serve` keeps serving when the reader of its output has gone, and still stops on SIGTERM', async () => {
    const { port, child, exited } = await startServe();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    // Gone before the server writes a line: its log lines and the demo links all meet a closed pipe.
    child.stdout?.destroy();
    try {
      let health: Response | undefined;
      while (health === undefined) {
        if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}):\n${stderr}`);
        health = await fetch(`http://127.0.0.1:${port}/api/health`).catch(() => undefined);
        if (health === undefined)
          await Promise.race([new Promise((resolve) => setImmediate(resolve)), exited]);
      }
      expect(await health.json()).toEqual({ status: 'ok' });
      // A request that logs: the server writes its line into the closed pipe and answers the next.
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);

      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      expect(stderr).toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});

describe(`slow clients (${databaseLabel})`, () => {
  it('a request whose headers have not arrived within 10 seconds ends with 408', async () => {
    const server = await startTestServer();
    try {
      const port = Number(new URL(server.baseUrl).port);
      const slow = await slowHeaderClient(port);
      const startedAt = performance.now();
      const received = await slow.closed;
      const closedAfterMs = performance.now() - startedAt;

      expect(received).toMatch(/^HTTP\/1\.1 408 /);
      expect(closedAfterMs).toBeGreaterThan(9000);
      expect(closedAfterMs).toBeLessThan(12_000);
    } finally {
      await server.close();
    }
  }, 30_000);
});
