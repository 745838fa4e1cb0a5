import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { type DatabaseHandle, openDatabase } from '../src/db/index.ts';
import { createTestDatabase, databaseLabel, TestClock, type TestDatabase } from './helpers/server.ts';

const serverRoot = path.resolve(import.meta.dirname, '..');

function databaseEnv(database: TestDatabase, webDist: string): Record<string, string> {
  const env: Record<string, string> = {
    DATA_DIR: database.dataDir,
    KBA_PEPPER: database.pepper,
    WEB_DIST_DIR: webDist,
  };
  if (database.databaseUrl !== undefined) env.DATABASE_URL = database.databaseUrl;
  if (database.authSigningKey !== undefined) env.AUTH_SIGNING_KEY = database.authSigningKey;
  return env;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Resolves once `check` passes, re-checking on each turn of the event loop. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setImmediate(resolve));
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

  /** `main.ts serve` in a process of its own on a free port, its output piped to this test. */
  async function startServe() {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: serverRoot,
      env: { ...process.env, ...databaseEnv(database, webDist), PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
    return { port, child, exited };
  }

  it('`serve` stops on SIGTERM with exit code 0 while a client holds a keep-alive connection', async () => {
    const { port, child, exited } = await startServe();
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    try {
      while (!output.includes('Server listening')) {
        if (child.exitCode !== null) throw new Error(`serve exited early:\n${output}`);
        await Promise.race([once(child.stdout ?? child, 'data'), exited]);
      }
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(await health.json()).toEqual({ status: 'ok' });

      child.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
      const logLines = output.split('\n').filter((line) => line.startsWith('{'));
      const messages = logLines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages).toContain('shutting down');
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
