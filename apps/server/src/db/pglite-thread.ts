import { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import { runsFromBuild } from '../build-check.ts';
import { deserializeError, ThreadCalls, type ThreadReply } from '../thread-calls.ts';
import { DatabaseUnavailableError } from './availability.ts';
import type { PgliteRequest, PgliteThreadOptions } from './pglite-protocol.ts';

/** What a statement answers, as far as it crosses threads. */
type ThreadResults<Row> = Pick<Results<Row>, 'rows' | 'fields' | 'affectedRows'>;

/** The queries of PGlite's interface that drizzle and the migrations use, inside or outside a transaction. */
export interface PgliteQueries {
  query<Row>(text: string, params?: unknown[], options?: QueryOptions): Promise<ThreadResults<Row>>;
  exec(text: string): Promise<ThreadResults<unknown>[]>;
}

/** Each kind of request without its id, which `ThreadCalls` adds. */
type WithoutId<Request> = Request extends PgliteRequest ? Omit<Request, 'id'> : never;
type RequestWithoutId = WithoutId<PgliteRequest>;

/**
 * The thread's first code. From the build, its bundle beside `dist/main.js`; from the sources, tsx's
 * hooks (a worker does not inherit them, on Node 20 to 24 alike) and then pglite-worker.ts. Both are
 * resolved here, since the thread itself would resolve from the working directory.
 */
const workerBootstrap = runsFromBuild
  ? `import(${JSON.stringify(new URL('./db/pglite-worker.js', import.meta.url).href)})`
  : `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))})
  .then(({ register }) => { register(); return import(${JSON.stringify(import.meta.resolve('./pglite-worker.ts'))}); })`;

/**
 * Calls waiting for the thread past which new work is refused (503) instead of queued: a request
 * that would wait behind this many statements is better told to come back. Work inside a
 * transaction already begun is never refused, so no transaction is left open.
 */
export const maxWaitingCalls = 2000;

/**
 * PGlite on a thread of its own: it runs PostgreSQL synchronously, so on the server's thread no
 * request would be read while a statement runs (decision record 008). The server's thread only
 * sends statements and their values and gets the rows back.
 */
export class PgliteThread implements PgliteQueries {
  readonly #worker: Worker;
  readonly #calls: ThreadCalls;
  #closing = false;
  #onStop: (error: Error) => void = () => undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    this.#calls = new ThreadCalls(
      worker,
      (code) => `The embedded database's thread ended (exit code ${code})`,
      (reason) => {
        if (!this.#closing) this.#onStop(reason);
      },
    );
  }

  /** Starts the thread and waits until PGlite is open in `options.path`. */
  static open(options: PgliteThreadOptions): Promise<PgliteThread> {
    const worker = new Worker(workerBootstrap, { eval: true, workerData: options });
    return new Promise((resolve, reject) => {
      const exited = (code: number) =>
        reject(new Error(`The embedded database's thread ended before it opened (exit code ${code})`));
      const started = (message: ThreadReply) => {
        worker.off('message', started);
        worker.off('error', reject);
        worker.off('exit', exited);
        if (message.ok) resolve(new PgliteThread(worker));
        else {
          reject(deserializeError(message.error));
          void worker.terminate();
        }
      };
      worker.on('message', started);
      worker.once('error', reject);
      worker.once('exit', exited);
    });
  }

  /** Where it reports the thread ending other than by `close` (an error in PGlite, memory exhausted). */
  onStop(listener: (error: Error) => void): void {
    this.#onStop = listener;
  }

  #call(request: RequestWithoutId): Promise<unknown> {
    return this.#calls.call(request);
  }

  #query<Row>(
    transaction: number | undefined,
    text: string,
    params?: unknown[],
    options?: QueryOptions,
    mayPrepare = true,
  ): Promise<ThreadResults<Row>> {
    return this.#call({
      mayPrepare,
      op: 'query',
      text,
      params,
      rowMode: options?.rowMode,
      keepTextOf: options?.parsers === undefined ? undefined : Object.keys(options.parsers).map(Number),
      transaction,
    }) as Promise<ThreadResults<Row>>;
  }

  #exec(transaction: number | undefined, text: string): Promise<ThreadResults<unknown>[]> {
    return this.#call({ op: 'exec', text, transaction }) as Promise<ThreadResults<unknown>[]>;
  }

  /** Calls sent to the thread and not answered yet. */
  get waiting(): number {
    return this.#calls.pending;
  }

  /** Refuses new work while the thread has too much waiting. */
  #admit(): Promise<never> | undefined {
    if (this.#calls.pending < maxWaitingCalls) return undefined;
    return Promise.reject(new DatabaseUnavailableError('The embedded database has too much work waiting.'));
  }

  query<Row>(text: string, params?: unknown[], options?: QueryOptions): Promise<ThreadResults<Row>> {
    return this.#admit() ?? this.#query(undefined, text, params, options);
  }

  exec(text: string): Promise<ThreadResults<unknown>[]> {
    return this.#admit() ?? this.#exec(undefined, text);
  }

  /** `query`, but never prepared: planned for its values on every run. */
  queryPlannedEachTime<Row>(text: string, params: unknown[]): Promise<ThreadResults<Row>> {
    return this.#admit() ?? this.#query(undefined, text, params, undefined, false);
  }

  /** Runs `work` in one transaction: committed when it returns, rolled back when it throws. */
  async transaction<T>(work: (queries: PgliteQueries) => Promise<T>): Promise<T> {
    await this.#admit();
    const transaction = (await this.#call({ op: 'begin' })) as number;
    const queries: PgliteQueries = {
      query: (text, params, options) => this.#query(transaction, text, params, options),
      exec: (text) => this.#exec(transaction, text),
    };
    let result: T;
    try {
      result = await work(queries);
    } catch (error) {
      await this.#call({ op: 'end', transaction, commit: false });
      throw error;
    }
    await this.#call({ op: 'end', transaction, commit: true });
    return result;
  }

  /** The whole data directory as a gzipped tarball, taken between two statements. */
  async dumpDataDir(): Promise<Uint8Array> {
    return (await this.#call({ op: 'dump' })) as Uint8Array;
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#call({ op: 'close' });
    await this.#worker.terminate();
  }
}
