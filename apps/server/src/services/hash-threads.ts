import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ClientGoneError } from '../client-gone.ts';
import { ThreadCalls } from '../thread-calls.ts';
import { traced } from '../tracing.ts';

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
 * The thread's code, plain JavaScript so it needs no loader. Jobs that have arrived by the time it
 * is free run two at a time and answer in one message, so the server's thread takes both in one
 * wake-up (decision record 017).
 */
const threadSource = `
const { parentPort, workerData } = require('node:worker_threads');
const argon2 = require(workerData.argon2Path);
const answer = (job) => {
  try {
    const value = job.kind === 'hash'
      ? argon2.hashSync(job.password, job.options)
      : argon2.verifySync(job.storedHash, job.password);
    return { id: job.id, ok: true, value };
  } catch (error) {
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    return { id: job.id, ok: false, error: { name, message, fields: {} } };
  }
};
const arrived = [];
const runArrived = () => {
  while (arrived.length > 0) {
    parentPort.postMessage(arrived.splice(0, 2).map(answer));
  }
};
parentPort.on('message', (job) => {
  if (arrived.push(job) === 1) setImmediate(runArrived);
});
`;

interface QueuedJob {
  job: HashJob;
  resolve(value: unknown): void;
  reject(error: unknown): void;
  callerGone: (() => boolean) | undefined;
}

/**
 * Jobs a thread holds at once: the two it runs and the next two, so it never waits for the server's
 * thread between pairs. The rest wait here, where a job whose caller has gone is dropped unhashed.
 */
export const jobsPerThread = 4;

/**
 * Password hashes on threads of their own, one per core at most, started when needed: on libuv's
 * pool they cost more and delay file reads. A job whose caller has gone by
 * the time a thread has room is never run (decision record 017).
 */
export class HashThreads {
  readonly #threads: ThreadCalls[] = [];
  readonly #waiting: QueuedJob[] = [];
  readonly #limit: number;
  readonly #argon2Path = createRequire(import.meta.url).resolve('@node-rs/argon2');

  constructor(limit = availableParallelism()) {
    this.#limit = limit;
  }

  get started(): number {
    return this.#threads.length;
  }

  /** Jobs that no thread holds yet, and jobs the threads hold (running or next in line). */
  get queue(): { waiting: number; held: number } {
    return {
      waiting: this.#waiting.length,
      held: this.#threads.reduce((sum, thread) => sum + thread.pending, 0),
    };
  }

  /** The PHC string of `password` hashed with `options`. */
  async hash(password: string, options: Argon2Options): Promise<string> {
    return String(
      await traced('argon2 hash', {}, () => this.#run({ kind: 'hash', password, options }, undefined)),
    );
  }

  /**
   * Whether `password` matches `storedHash`; rejects when the library cannot read `storedHash`, and
   * with a `ClientGoneError` when `callerGone` answers true as a thread gets room for the job.
   */
  async verify(storedHash: string, password: string, callerGone?: () => boolean): Promise<boolean> {
    const verified = await traced('argon2 verify', {}, () =>
      this.#run({ kind: 'verify', storedHash, password }, callerGone),
    );
    return verified === true;
  }

  #run(job: HashJob, callerGone: (() => boolean) | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ job, resolve, reject, callerGone });
      this.#handOut();
    });
  }

  /** Gives waiting jobs, oldest first, to threads with room; drops those whose caller has gone. */
  #handOut(): void {
    for (let thread = this.#threadWithRoom(); thread !== undefined; thread = this.#threadWithRoom()) {
      const queued = this.#waiting.shift();
      if (queued === undefined) return;
      if (queued.callerGone?.() === true) {
        queued.reject(new ClientGoneError());
        continue;
      }
      thread
        .call(queued.job)
        .then(queued.resolve, queued.reject)
        .finally(() => this.#handOut());
    }
  }

  /** An idle thread, else a new one while under the limit, else the least busy with room. */
  #threadWithRoom(): ThreadCalls | undefined {
    if (this.#waiting.length === 0) return undefined;
    const leastBusy = this.#threads.reduce<ThreadCalls | undefined>(
      (best, thread) => (best === undefined || thread.pending < best.pending ? thread : best),
      undefined,
    );
    if (leastBusy !== undefined && leastBusy.pending === 0) return leastBusy;
    if (this.#threads.length < this.#limit) return this.#startThread();
    return leastBusy !== undefined && leastBusy.pending < jobsPerThread ? leastBusy : undefined;
  }

  #startThread(): ThreadCalls {
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
