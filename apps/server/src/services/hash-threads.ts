import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** argon2 parameters as `@node-rs/argon2` takes them. */
export interface Argon2Options {
  algorithm: number;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

export type HashJob =
  | { kind: 'hash'; password: string; options: Argon2Options }
  | { kind: 'verify'; storedHash: string; password: string };

type HashRequest = HashJob & { id: number };

type HashReply =
  | { id: number; ok: true; value: string | boolean }
  | { id: number; ok: false; message: string };

/**
 * The thread's code, plain JavaScript so it needs no loader: it hashes and verifies one job after
 * another, in the order they came, with the synchronous calls of `@node-rs/argon2`.
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
parentPort.on('message', (job) => {
  try {
    const value = job.kind === 'hash'
      ? argon2.hashSync(job.password, job.options)
      : argon2.verifySync(job.storedHash, job.password);
    parentPort.postMessage({ id: job.id, ok: true, value });
  } catch (error) {
    parentPort.postMessage({ id: job.id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
`;

interface Waiting {
  resolve(value: string | boolean): void;
  reject(error: Error): void;
}

class HashThread {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiting>();

  constructor(argon2Path: string, onEnd: (thread: HashThread) => void) {
    this.#worker = new Worker(threadSource, { eval: true, workerData: { argon2Path } });
    this.#worker.unref();
    this.#worker.on('message', (reply: HashReply) => this.#settle(reply));
    const end = (reason: Error) => {
      onEnd(this);
      for (const waiting of this.#waiting.values()) waiting.reject(reason);
      this.#waiting.clear();
    };
    this.#worker.on('error', end);
    this.#worker.on('exit', (code) => end(new Error(`A password hashing thread ended (exit code ${code})`)));
  }

  get queued(): number {
    return this.#waiting.size;
  }

  /** While a job is unanswered the thread keeps the process alive, as a socket would. */
  run(request: HashRequest, waiting: Waiting): void {
    if (this.#waiting.size === 0) this.#worker.ref();
    this.#waiting.set(request.id, waiting);
    this.#worker.postMessage(request);
  }

  #settle(reply: HashReply): void {
    const waiting = this.#waiting.get(reply.id);
    this.#waiting.delete(reply.id);
    if (this.#waiting.size === 0) this.#worker.unref();
    if (reply.ok) waiting?.resolve(reply.value);
    else waiting?.reject(new Error(reply.message));
  }
}

/**
 * Password hashes on threads of their own, one per core at most, each with its own queue. On the
 * thread pool the server shares with file reads (four threads), a hash took 11-13 ms of CPU against
 * 9 ms on a thread that does nothing else, and two threads that each take their next job as soon as
 * they finish the last sign in a tenth more admins a second (decision record 009). Threads start
 * when the work needs them, so a command that hashes once starts one.
 */
export class HashThreads {
  readonly #threads: HashThread[] = [];
  readonly #limit: number;
  readonly #argon2Path = createRequire(import.meta.url).resolve('@node-rs/argon2');
  #nextId = 1;

  constructor(limit = availableParallelism()) {
    this.#limit = limit;
  }

  get started(): number {
    return this.#threads.length;
  }

  run(job: HashJob): Promise<string | boolean> {
    return new Promise((resolve, reject) => {
      const id = this.#nextId;
      this.#nextId += 1;
      this.#leastQueued().run({ ...job, id }, { resolve, reject });
    });
  }

  #leastQueued(): HashThread {
    const shortest = this.#threads.reduce<HashThread | undefined>(
      (best, thread) => (best === undefined || thread.queued < best.queued ? thread : best),
      undefined,
    );
    if (shortest !== undefined && (shortest.queued === 0 || this.#threads.length >= this.#limit)) {
      return shortest;
    }
    const started = new HashThread(this.#argon2Path, (ended) => {
      const index = this.#threads.indexOf(ended);
      if (index >= 0) this.#threads.splice(index, 1);
    });
    this.#threads.push(started);
    return started;
  }
}
