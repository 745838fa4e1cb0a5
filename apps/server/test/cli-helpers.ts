import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
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
