import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ThreadCalls } from '../thread-calls.ts';

/** argon2 parameters as `@node-rs/argon2` takes them. */
export interface Argon2Options {
  algorithm: number;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

type HashJob =
  | { kind: 'hash'; password: string; options: Argon2Options }
  | { kind: 'verify'; storedHash: string; password: string };

/**
 * The thread's code, plain JavaScript so it needs no loader: it hashes and verifies one job after
 * another, in the order they came, with the synchronous calls of `@node-rs/argon2`, and answers
 * each with a `ThreadReply`.
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
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    parentPort.postMessage({ id: job.id, ok: false, error: { name, message, fields: {} } });
  }
});
`;

/**
 * Password hashes on threads of their own, one per core at most, each with its own queue. On the
 * thread pool the server shares with file reads (four threads), a hash took 11-13 ms of CPU against
 * 9 ms on a thread that does nothing else, and two threads that each take their next job as soon as
 * they finish the last sign in a tenth more admins a second (decision record 009). Threads start
 * when the work needs them, so a command that hashes once starts one.
 */
export class HashThreads {
  readonly #threads: ThreadCalls[] = [];
  readonly #limit: number;
  readonly #argon2Path = createRequire(import.meta.url).resolve('@node-rs/argon2');

  constructor(limit = availableParallelism()) {
    this.#limit = limit;
  }

  get started(): number {
    return this.#threads.length;
  }

  /** The PHC string of `password` hashed with `options`. */
  async hash(password: string, options: Argon2Options): Promise<string> {
    return String(await this.#run({ kind: 'hash', password, options }));
  }

  /** Whether `password` matches `storedHash`; rejects when the library cannot read `storedHash`. */
  async verify(storedHash: string, password: string): Promise<boolean> {
    return (await this.#run({ kind: 'verify', storedHash, password })) === true;
  }

  #run(job: HashJob): Promise<unknown> {
    return this.#leastQueued().call(job);
  }

  #leastQueued(): ThreadCalls {
    const shortest = this.#threads.reduce<ThreadCalls | undefined>(
      (best, thread) => (best === undefined || thread.pending < best.pending ? thread : best),
      undefined,
    );
    if (shortest !== undefined && (shortest.pending === 0 || this.#threads.length >= this.#limit)) {
      return shortest;
    }
    const worker = new Worker(threadSource, { eval: true, workerData: { argon2Path: this.#argon2Path } });
    const started = new ThreadCalls(
      worker,
      (code) => `A password hashing thread ended (exit code ${code})`,
      () => this.#threads.splice(this.#threads.indexOf(started), 1),
    );
    this.#threads.push(started);
    return started;
  }
}
