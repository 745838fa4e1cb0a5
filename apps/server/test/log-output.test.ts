import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { bufferedLogOutput } from '../src/cli/serve.ts';
import { call, startTestServer } from './helpers/server.ts';

const serverRoot = path.resolve(import.meta.dirname, '..');

describe('the log output of `serve`', () => {
  const directories: string[] = [];
  afterEach(() => {
    for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  function logFile() {
    const directory = mkdtempSync(path.join(tmpdir(), 'entry-log-output-'));
    directories.push(directory);
    const file = path.join(directory, 'server.log');
    return { fd: openSync(file, 'w'), read: () => readFileSync(file, 'utf8') };
  }

  it('writes lines a few at a time, once 4 KiB wait, and the rest when flushed', () => {
    const { fd, read } = logFile();
    const output = bufferedLogOutput(fd);
    try {
      const line = `${JSON.stringify({ msg: 'request completed', padding: 'x'.repeat(200) })}\n`;
      const linesUnder4KiB = Math.floor(4096 / line.length);
      for (let count = 0; count < linesUnder4KiB; count += 1) output.write(line);
      expect(read()).toBe('');

      output.write(line);
      expect(read()).toBe(line.repeat(linesUnder4KiB + 1));

      output.write('{"msg":"last"}\n');
      expect(read()).toBe(line.repeat(linesUnder4KiB + 1));
      output.flush();
      expect(read()).toBe(`${line.repeat(linesUnder4KiB + 1)}{"msg":"last"}\n`);
    } finally {
      output.destroy();
    }
  });

  it('writes the waiting lines when the process fails', async () => {
    const serveModule = pathToFileURL(path.join(serverRoot, 'src/cli/serve.ts')).href;
    const script = `
      import pino from 'pino';
      import { bufferedLogOutput } from ${JSON.stringify(serveModule)};
      const log = pino(bufferedLogOutput());
      log.info('written before the failure');
      setImmediate(() => { throw new Error('the failure'); });
    `;
    const { fd, read } = logFile();
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: serverRoot,
      stdio: ['ignore', fd, 'pipe'],
    });
    closeSync(fd);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code).toBe(1);
    expect(stderr).toContain('the failure');
    const lines = read().trim().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'written before the failure',
    ]);
  });

  it.each([
    ['json', true],
    ['pretty', false],
  ] as const)('logs each request at info only in the %s format', async (format, logged) => {
    const logLines: string[] = [];
    const server = await startTestServer({ env: { LOG_FORMAT: format, LOG_LEVEL: 'info' }, logLines });
    try {
      await call(server.baseUrl, 'POST', '/api/auth/v1/admin/sign-in', {
        body: { username: 'nobody', password: 'not a password' },
      });
      const messages = logLines.map((line) => (JSON.parse(line) as { msg: string }).msg);
      expect(messages.includes('request completed')).toBe(logged);
    } finally {
      await server.close();
    }
  });

  it('prints readable lines, not JSON, with LOG_FORMAT=pretty', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'entry-pretty-'));
    directories.push(directory);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
      cwd: serverRoot,
      env: { ...process.env, LOG_FORMAT: 'pretty', PORT: '0', DATA_DIR: directory },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    await expect.poll(() => stdout.includes('sign-in'), { timeout: 80_000 }).toBe(true);
    child.kill('SIGTERM');
    await once(child, 'close');
    expect(stdout).toMatch(/INFO.*demo data created/);
    expect(stdout).toContain(`running on Node ${process.versions.node}`);
    expect(stdout).not.toContain('{"level"');
  }, 100_000);
});
