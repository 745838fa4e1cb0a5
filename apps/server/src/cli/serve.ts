import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { buildApp } from '../app.ts';
import { type Config, isTrial, requireMailTransport } from '../config.ts';
import { type DatabaseHandle, openDatabase, schemaOnOpen } from '../db/index.ts';
import { demoLinks } from '../demo/links.ts';
import { DemoSecretsMissingError, ensureDemoData } from '../demo/seed.ts';
import { resolvePepper } from '../services/secrets.ts';
import { backupFrom } from './backup.ts';
import { runCli } from './operator.ts';

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

/** A stream whose text goes to `write`, as the control socket relays a command's output. */
function textSink(write: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      write(chunk.toString('utf8'));
      done();
    },
  });
}

/**
 * Lines for a person at a terminal: one readable line each, without the process's id and host.
 * Its library is loaded only here, so a server that logs JSON never holds it.
 */
async function prettyLogOutput() {
  const { default: pinoPretty } = await import('pino-pretty');
  const output = pinoPretty({
    colorize: process.stdout.isTTY === true,
    sync: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
  return { stream: output, flush: () => undefined };
}

/** What a shutdown keeps of its grace for closing the database after the connections. */
const closeReserveMs = 2000;
/** How often a closing server looks for keep-alive connections that have just gone idle. */
const idleSweepMs = 100;

/**
 * The demo's links and passwords for a trial, seeding its data on an empty database; a deployment
 * (PostgreSQL or https) gets neither, whatever its database holds.
 */
async function trialWelcome(database: DatabaseHandle, config: Config, pepper: string) {
  if (!isTrial(config)) return { created: false, text: undefined };
  try {
    const { created, demo } = await ensureDemoData(database.db, { config, pepper });
    return { created, text: demoLinks(config, demo) };
  } catch (error) {
    if (error instanceof DemoSecretsMissingError) return { created: false, text: `${error.message}\n` };
    throw error;
  }
}

/**
 * `serve`: opens the database (migrating it as `schemaOnOpen` says), seeds the demo data on an
 * empty one in a trial and prints a link per flow, listens, and on SIGTERM/SIGINT closes gracefully
 * within SHUTDOWN_GRACE_SECONDS.
 */
export async function serve(configured: Config): Promise<number> {
  requireMailTransport(configured);
  keepServingWithoutOutput();
  const logFormat =
    configured.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : configured.logFormat;
  const config: Config = { ...configured, logFormat };
  const buffered = logFormat === 'json' ? bufferedLogOutput() : undefined;
  const logOutput =
    buffered === undefined ? await prettyLogOutput() : { stream: buffered, flush: () => buffered.flush() };
  const pepper = resolvePepper(config);
  const database = await openDatabase(config, schemaOnOpen(config));
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    const welcome = await trialWelcome(database, config, pepper);
    app = await buildApp(config, { database, logStream: logOutput.stream });
    // Operator commands reach this server while it holds the embedded database.
    database.serveControlCommands?.((command, output) =>
      command.argv[0] === 'backup'
        ? backupFrom(database, command.argv.slice(1), output)
        : runCli(command.argv, {
            config,
            stdout: textSink(output.stdout),
            stderr: textSink(output.stderr),
            database: async () => database,
            actor: command.actor,
          }),
    );
    if (welcome.created) app.log.info('demo data created');
    app.log.info(`running on Node ${process.versions.node}`);
    await app.listen({ port: config.port, host: config.bindAddress });
    logOutput.flush();
    if (welcome.text !== undefined) process.stdout.write(`\n${welcome.text}\n`);
  } catch (error) {
    await database.close();
    throw error;
  }

  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  app.log.info({ signal }, 'shutting down');
  const graceMs = config.shutdownGraceSeconds * 1000;
  const overdue = setTimeout(() => {
    app.log.error('the shutdown grace is over: exiting before the close has finished');
    process.exit(1);
  }, graceMs);
  try {
    await closeWithin(app, graceMs - Math.min(closeReserveMs, graceMs / 2));
    await database.close();
  } finally {
    clearTimeout(overdue);
  }
  return 0;
}

/**
 * Closes `app` (no new connections, requests in flight answered with `Connection: close`, idle
 * keep-alive connections ended) and, past `drainMs`, destroys the connections still open: a slow
 * client, such as one sending its headers a byte at a time, cannot hold the process.
 */
export async function closeWithin(app: FastifyInstance, drainMs: number): Promise<void> {
  // The server ends the connections idle when the close begins; one whose answer was already under
  // way when it began goes idle later, still kept alive, and is ended by the sweep.
  const sweep = setInterval(() => app.server.closeIdleConnections(), idleSweepMs);
  const cut = setTimeout(() => {
    app.log.warn('the shutdown grace is ending: closing the connections still open');
    app.server.closeAllConnections();
  }, drainMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(cut);
  }
}
