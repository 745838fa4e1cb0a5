import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { runCli } from '../src/cli/operator.ts';
import type { TestServer } from './helpers/server.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Runs an operator command in-process against the test server's own database and clock. */
export async function cli(server: TestServer, ...argv: string[]): Promise<CliRun> {
  const stdout = collect();
  const stderr = collect();
  const code = await runCli(argv, {
    config: server.config,
    stdout: stdout.stream,
    stderr: stderr.stream,
    database: async () => ({ db: server.ctx.db }),
    actor: 'test-operator',
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** A file in a fresh temporary directory; returns its path. */
export function tempFile(name: string, content: string | Buffer = ''): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'entry-cli-')), name);
  writeFileSync(file, content);
  return file;
}

export const consumerHeader = 'consumerId,name,email,last4Ssn,postalCode,dateOfBirth';

export function csv(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** The server package, where `src/main.ts` lives. */
export const serverRoot = path.resolve(import.meta.dirname, '..');

/** tsx's loader by its file, for a process started outside the project, where `--import tsx` cannot find it. */
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** `tsx src/main.ts ...` as an operator runs it (npm run cli -- ...), in a process of its own. */
export async function runMain(env: Record<string, string>, ...args: string[]) {
  return runMainFrom(serverRoot, env, ...args);
}

/** The same, started in `cwd`, as a service manager may start it. */
export async function runMainFrom(cwd: string, env: Record<string, string>, ...args: string[]) {
  const child = spawn(
    process.execPath,
    ['--import', tsxLoader, path.join(serverRoot, 'src/main.ts'), ...args],
    {
      cwd,
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}
