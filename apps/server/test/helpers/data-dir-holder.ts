import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** tsx's loader by its file, so a holder started in any directory finds it. */
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const holderScript = path.join(import.meta.dirname, 'hold-data-dir.ts');

export interface Holder {
  child: ChildProcess;
  pid: number;
  /** The lock socket's path as the holder bound it. */
  socketPath: string;
  exited: Promise<unknown>;
}

/** Another process holding `dataDir` through `lockDataDir`, started in `cwd`; rejects if it cannot. */
export async function startHolder(dataDir: string, cwd = process.cwd()): Promise<Holder> {
  const child = spawn(process.execPath, ['--import', tsxLoader, holderScript, dataDir], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = once(child, 'exit');
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  while (!stdout.includes('\n')) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the holder did not lock ${dataDir}:\n${stderr}`);
    }
    await Promise.race([once(child.stdout ?? child, 'data'), exited]);
  }
  const { pid, socketPath } = JSON.parse(stdout) as { pid: number; socketPath: string };
  return { child, pid, socketPath, exited };
}
