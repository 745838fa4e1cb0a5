import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
export const logsDir = path.join(repoRoot, 'bench/results/logs');

export interface ServerProcess {
  name: string;
  pid: number;
  baseUrl: string;
  stop(): Promise<void>;
}

/** Polls `url` until it answers with a 2xx, at most `timeoutMs`; the process dying first is an error. */
async function waitUntilReady(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await delay(200);
  }
  throw new Error(`${url}: not ready within ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), delay(10_000).then(() => false)]);
  if (!stopped) {
    child.kill('SIGKILL');
    await exited;
  }
}

export interface StartOptions {
  name: string;
  /** A JavaScript file, or a TypeScript file run with tsx, in one Node process (so its pid is the server's). */
  script: string;
  args?: string[];
  /** Node's own flags, before the script (and `--import tsx`). */
  nodeFlags?: string[];
  env: Record<string, string>;
  port: number;
  readyPath: string;
  readyTimeoutMs?: number;
}

/**
 * Starts one server in its own process, its output kept in bench/results/logs/<name>.log. The
 * server writes the file itself, as a deployment's log shipper would take it: relayed through
 * this process, every log line would cost the load generator's thread too.
 */
export async function startServer(options: StartOptions): Promise<ServerProcess> {
  const log = openSync(path.join(logsDir, `${options.name}.log`), 'w');
  const child = spawn(
    process.execPath,
    [
      ...(options.nodeFlags ?? []),
      ...(options.script.endsWith('.ts') ? ['--import', 'tsx'] : []),
      options.script,
      ...(options.args ?? []),
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', log, log],
    },
  );
  closeSync(log);
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not start`);
  try {
    await waitUntilReady(child, `${baseUrl}${options.readyPath}`, options.readyTimeoutMs ?? 90_000);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { name: options.name, pid, baseUrl, stop: () => stopChild(child) };
}

/** Resident memory of a process in MiB, from /proc/<pid>/status (VmRSS). */
async function residentMiB(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
    return match?.[1] === undefined ? undefined : Math.round(Number(match[1]) / 1024);
  } catch {
    return undefined;
  }
}

/** Samples the resident memory of `pids` every 250 ms until stopped; the peak of their sum wins. */
export function sampleResidentMemory(pids: number[]): { stop(): Promise<number | undefined> } {
  let peak: number | undefined;
  let running = true;
  const loop = (async () => {
    while (running) {
      const values = await Promise.all(pids.map(residentMiB));
      if (values.every((value) => value !== undefined)) {
        const total = values.reduce((sum, value) => sum + value, 0);
        peak = Math.max(peak ?? 0, total);
      }
      await delay(250);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return peak;
    },
  };
}

/** Runs `command` to its end in the repository's root; any exit but 0 is an error. */
async function runToEnd(command: string, args: string[], stdio: 'inherit' | 'ignore'): Promise<void> {
  const child = spawn(command, args, { cwd: repoRoot, stdio });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${[command, ...args].join(' ')} exited with ${code}`);
}

/**
 * Builds the server from the current sources (`npm run build -w apps/server`): the benchmark runs
 * the build, as `npm start` and a deployment do.
 */
export const buildServer = () => runToEnd('npm', ['run', 'build', '-w', 'apps/server'], 'ignore');

/** Runs a TypeScript script of the benchmark to its end, its output passed through. */
export const runScript = (script: string) =>
  runToEnd(process.execPath, ['--import', 'tsx', script], 'inherit');
