import { mkdirSync } from 'node:fs';
import pino from 'pino';
import pinoPretty from 'pino-pretty';
import { buildApp } from '../app.ts';
import type { Config } from '../config.ts';
import { openDatabase } from '../db/index.ts';
import { demoLinks } from '../demo/links.ts';
import { ensureDemoData } from '../demo/seed.ts';
import { resolvePepper } from '../services/secrets.ts';
import { writeDemoFile } from './demo-file.ts';

/**
 * The reader of the server's output (a terminal, a log shipper's pipe) can go away while the server
 * runs. Node reports each write after that as an EPIPE error on `process.stdout`, which, unhandled,
 * ends the process; pino's exit hook then retries its unwritten lines forever (sonic-boom 4), so the
 * process neither served nor exited, and ignored SIGTERM. The server keeps serving instead: pino
 * stops writing on its own EPIPE, and what would have gone to the output (the demo links, mail
 * without SMTP) is lost.
 */
function keepServingWithoutOutput(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/**
 * The log on standard output, a few lines to a write, since a system call per line was dear on the
 * server's thread (decision record 013). Waiting lines are written before the process exits, so
 * only a process killed outright loses them: at most the last second.
 */
export function bufferedLogOutput(fd = 1) {
  const output = pino.destination({ dest: fd, sync: true, minLength: 4096, periodicFlush: 1000 });
  process.once('exit', () => output.flush());
  return output;
}

/** Lines for a person at a terminal: one readable line each, without the process's id and host. */
function prettyLogOutput() {
  const output = pinoPretty({
    colorize: process.stdout.isTTY === true,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
  return { stream: output, flush: () => undefined };
}

/**
 * `serve`: opens and migrates the database, seeds the demo data on an empty one, prints a link per
 * flow, listens, and closes gracefully on SIGTERM/SIGINT.
 */
export async function serve(configured: Config): Promise<number> {
  keepServingWithoutOutput();
  const logFormat =
    configured.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : configured.logFormat;
  const config: Config = { ...configured, logFormat };
  const buffered = logFormat === 'json' ? bufferedLogOutput() : undefined;
  const logOutput =
    buffered === undefined ? prettyLogOutput() : { stream: buffered, flush: () => buffered.flush() };
  const pepper = resolvePepper(config);
  const database = await openDatabase(config);
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    const { created, demo } = await ensureDemoData(database.db, { config, pepper });
    mkdirSync(config.dataDir, { recursive: true });
    writeDemoFile(config, demo);
    app = await buildApp(config, { database, logStream: logOutput.stream });
    if (created) app.log.info('demo data created');
    await app.listen({ port: config.port, host: config.bindAddress });
    logOutput.flush();
    process.stdout.write(`\n${demoLinks(config, demo)}\n`);
  } catch (error) {
    await database.close();
    throw error;
  }

  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      app.log.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await app.close();
  await database.close();
  return 0;
}
