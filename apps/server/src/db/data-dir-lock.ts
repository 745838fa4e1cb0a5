import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { ConfigError } from '../config-values.ts';

/** PGlite is single-process: a second process must never open a DATA_DIR that another one holds. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    /** Undefined when the holder did not say (it may be stopped, e.g. by SIGSTOP). */
    readonly pid: number | undefined,
  ) {
    super(
      `The data directory ${dataDir} is in use by another process${pid === undefined ? '' : ` (pid ${pid})`}. ` +
        'Stop that process, or set DATA_DIR to another directory, or use DATABASE_URL for PostgreSQL.',
    );
    this.name = 'DataDirInUseError';
  }
}

/**
 * What the holder does with a command sent over its socket (the operator CLI's, while the holder
 * serves): runs it, writing its output to `stdout` and `stderr`, and answers its exit code.
 */
export type ControlCommandHandler = (
  command: { argv: string[]; actor: string },
  output: { stdout(text: string): void; stderr(text: string): void },
) => Promise<number>;

/** The holder of a data directory: a Unix socket it listens on in that directory. */
export interface DataDirLock {
  /** The socket's path as bound: absolute, relative to the working directory, or through /proc. */
  readonly socketPath: string;
  /** From now on, a connection that sends a command after the greeting has it run by `handler`. */
  serveCommands(handler: ControlCommandHandler): void;
  /** Stops listening and removes the socket file. */
  release(): void;
}

export const lockSocketName = 'pglite.sock';

/** A Unix socket path longer than sockaddr_un holds cannot be bound (the NUL takes one byte). */
const maxSocketPathBytes = process.platform === 'darwin' ? 103 : 107;
/** How long a prober waits for a live holder to say its pid. */
const greetingWaitMs = 2000;

interface SocketAddress {
  path: string;
  /** Frees what the path needed (an open directory for a /proc path). */
  close(): void;
}

const fits = (socketPath: string) => Buffer.byteLength(socketPath) <= maxSocketPathBytes;

/**
 * The shortest working path of the socket in `dataDir`: absolute; else relative to the working
 * directory; else, on Linux, through an open descriptor of the directory (/proc/self/fd/N/...).
 */
function socketAddress(dataDir: string): SocketAddress {
  const absolute = path.join(dataDir, lockSocketName);
  if (fits(absolute)) return { path: absolute, close: () => undefined };
  const relative = path.relative(process.cwd(), absolute);
  if (fits(relative)) return { path: relative, close: () => undefined };
  if (existsSync('/proc/self/fd')) {
    const directory = openSync(dataDir, 'r');
    return { path: `/proc/self/fd/${directory}/${lockSocketName}`, close: () => closeSync(directory) };
  }
  throw new ConfigError(
    'DATA_DIR',
    `is too long for its lock socket (${absolute} has ${Buffer.byteLength(absolute)} bytes, at most ` +
      `${maxSocketPathBytes} are possible): use a shorter path, or start the server in or near it`,
  );
}

/** How long the holder waits for a command after its greeting. */
const commandWaitMs = 5000;

/**
 * Each connection learns who holds the directory: one JSON line. Without a command handler, or
 * when no command comes, that is all; with one, a command line (`{"argv":[...],"actor":"..."}`)
 * is run and answered with `{"stdout":...}` and `{"stderr":...}` lines and a last `{"exit":n}`.
 */
function greet(socket: Socket, handler: ControlCommandHandler | undefined): void {
  socket.on('error', () => undefined);
  // A prober that never hangs up must not keep this process alive.
  socket.unref();
  const greeting = `${JSON.stringify({ pid: process.pid })}\n`;
  if (handler === undefined) {
    socket.end(greeting);
    return;
  }
  socket.write(greeting);
  socket.setTimeout(commandWaitMs, () => socket.end());
  let received = '';
  const onData = (chunk: Buffer) => {
    received += chunk.toString('utf8');
    const end = received.indexOf('\n');
    if (end < 0) return;
    socket.off('data', onData);
    socket.setTimeout(0);
    const command = commandOf(received.slice(0, end));
    if (command === undefined) {
      socket.end(
        `${JSON.stringify({ stderr: 'The control socket takes one command line.\n' })}\n${JSON.stringify({ exit: 2 })}\n`,
      );
      return;
    }
    const send = (line: object) => socket.write(`${JSON.stringify(line)}\n`);
    handler(command, { stdout: (text) => send({ stdout: text }), stderr: (text) => send({ stderr: text }) })
      .catch(() => 1)
      .then((exit) => socket.end(`${JSON.stringify({ exit })}\n`));
  };
  socket.on('data', onData);
}

function commandOf(line: string): { argv: string[]; actor: string } | undefined {
  try {
    const { argv, actor } = JSON.parse(line) as { argv?: unknown; actor?: unknown };
    if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) return undefined;
    if (typeof actor !== 'string' || actor === '') return undefined;
    return { argv, actor };
  } catch {
    return undefined;
  }
}

/** Listens on `socketPath`, or resolves undefined when its file exists (held, or left stale). */
function listenOn(
  socketPath: string,
  handlerOf: () => ControlCommandHandler | undefined,
): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer((socket) => greet(socket, handlerOf()));
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    });
    server.listen(socketPath, () => {
      // Only the owner may connect: a command run here acts with the server's rights.
      chmodSync(socketPath, 0o600);
      // Holding the lock is no reason to keep running; an accept error later loses nothing held.
      server.unref();
      server.on('error', () => undefined);
      resolve(server);
    });
  });
}

type Holder = { state: 'live'; pid: number | undefined } | { state: 'stale' } | { state: 'gone' };

/** Who is behind the socket file: a live process (connected), none (refused), or no file any more. */
function askHolder(socketPath: string): Promise<Holder> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let received = '';
    let connected = false;
    const answer = (holder: Holder) => {
      socket.destroy();
      resolve(holder);
    };
    const pidOf = (line: string): number | undefined => {
      try {
        const { pid } = JSON.parse(line) as { pid?: unknown };
        return typeof pid === 'number' && Number.isInteger(pid) ? pid : undefined;
      } catch {
        return undefined;
      }
    };
    socket.setTimeout(greetingWaitMs, () => answer({ state: 'live', pid: undefined }));
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      const end = received.indexOf('\n');
      if (end >= 0) answer({ state: 'live', pid: pidOf(received.slice(0, end)) });
    });
    socket.on('end', () => answer({ state: 'live', pid: pidOf(received) }));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (connected) answer({ state: 'live', pid: undefined });
      else if (error.code === 'ECONNREFUSED') answer({ state: 'stale' });
      else if (error.code === 'ENOENT') answer({ state: 'gone' });
      else reject(error);
    });
  });
}

/**
 * Locks `dataDir` for this process: it listens on the Unix socket `DATA_DIR/pglite.sock`, which the
 * operating system stops serving when the process ends, however it ends. A socket file nobody
 * listens on (its holder was killed) is removed and taken over; a live holder refuses with its pid.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const address = socketAddress(dataDir);
  try {
    let handler: ControlCommandHandler | undefined;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const server = await listenOn(address.path, () => handler);
      if (server !== undefined) {
        return {
          socketPath: address.path,
          serveCommands: (serving) => {
            handler = serving;
          },
          release: () => {
            // Closing a listening Unix socket removes its file (libuv does).
            server.close();
            address.close();
          },
        };
      }
      const holder = await askHolder(address.path);
      if (holder.state === 'live') throw new DataDirInUseError(dataDir, holder.pid);
      if (holder.state === 'stale') rmSync(address.path, { force: true });
    }
  } catch (error) {
    address.close();
    throw error;
  }
  address.close();
  throw new Error(`Could not lock the data directory ${dataDir}: its lock socket kept changing hands`);
}

/**
 * Sends `command` to the process holding `dataDir` and relays its output: answers the exit code,
 * or undefined when no holder runs commands there (none holds it, or the holder only greets).
 */
export function sendControlCommand(
  dataDir: string,
  command: { argv: string[]; actor: string },
  output: { stdout(text: string): void; stderr(text: string): void },
): Promise<number | undefined> {
  const address = socketAddress(dataDir);
  return new Promise<number | undefined>((resolve, reject) => {
    const socket = connect(address.path);
    let received = '';
    let greeted = false;
    let exit: number | undefined;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      for (let end = received.indexOf('\n'); end >= 0; end = received.indexOf('\n')) {
        const line = JSON.parse(received.slice(0, end)) as {
          stdout?: string;
          stderr?: string;
          exit?: number;
        };
        received = received.slice(end + 1);
        if (!greeted) {
          greeted = true;
          socket.write(`${JSON.stringify(command)}\n`);
        } else if (line.stdout !== undefined) output.stdout(line.stdout);
        else if (line.stderr !== undefined) output.stderr(line.stderr);
        else if (line.exit !== undefined) exit = line.exit;
      }
    });
    socket.on('close', () => resolve(exit));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!greeted && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT')) resolve(undefined);
      else if (greeted) resolve(exit);
      else reject(error);
    });
  }).finally(() => address.close());
}
