import { availableParallelism } from 'node:os';
import { hash, verify } from '@node-rs/argon2';
import { ClientGoneError } from '../client-gone.ts';
import { traced } from '../tracing.ts';

/** argon2 parameters as `@node-rs/argon2` takes them. */
export interface Argon2Options {
  algorithm: number;
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

interface QueuedJob {
  /** Runs the hash and settles the caller's promise with its outcome. */
  start(): Promise<void>;
  reject(error: unknown): void;
  callerGone: (() => boolean) | undefined;
}

/** Threads of libuv's pool when `UV_THREADPOOL_SIZE` does not set another number. */
const libuvDefaultPoolSize = 4;

/**
 * Hashes run at once: one per core, and always one thread of libuv's pool left for the file
 * reads, name lookups and compression that share it.
 */
export function hashesAtOnce(): number {
  const poolSize = Number(process.env.UV_THREADPOOL_SIZE) || libuvDefaultPoolSize;
  return Math.max(1, Math.min(availableParallelism(), poolSize - 1));
}

/**
 * Password hashes and checks on libuv's pool, no more at once than `limit`: each holds its argon2
 * memory while it runs, and more at once than cores only makes each slower. The rest wait here in
 * arrival order, and a check whose caller has gone by the time its turn comes is never run
 * (decision record 045).
 */
export class HashQueue {
  readonly #waiting: QueuedJob[] = [];
  readonly #limit: number;
  #running = 0;

  constructor(limit = hashesAtOnce()) {
    this.#limit = limit;
  }

  /** Jobs waiting for their turn, and jobs running. */
  get queue(): { waiting: number; running: number } {
    return { waiting: this.#waiting.length, running: this.#running };
  }

  /** The PHC string of `password` hashed with `options`. */
  hash(password: string, options: Argon2Options): Promise<string> {
    return traced('argon2 hash', {}, () => this.#run(() => hash(password, options), undefined));
  }

  /**
   * Whether `password` matches `storedHash`; rejects when the library cannot read `storedHash`, and
   * with a `ClientGoneError` when `callerGone` answers true as the check's turn comes.
   */
  verify(storedHash: string, password: string, callerGone?: () => boolean): Promise<boolean> {
    return traced('argon2 verify', {}, () => this.#run(() => verify(storedHash, password), callerGone));
  }

  #run<T>(work: () => Promise<T>, callerGone: (() => boolean) | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.push({ start: () => work().then(resolve, reject), reject, callerGone });
      this.#startWaiting();
    });
  }

  /** Starts waiting jobs, oldest first, while under the limit; drops those whose caller has gone. */
  #startWaiting(): void {
    while (this.#running < this.#limit) {
      const queued = this.#waiting.shift();
      if (queued === undefined) return;
      if (queued.callerGone?.() === true) {
        queued.reject(new ClientGoneError());
        continue;
      }
      this.#running += 1;
      queued.start().finally(() => {
        this.#running -= 1;
        this.#startWaiting();
      });
    }
  }
}
