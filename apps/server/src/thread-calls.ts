import type { Worker } from 'node:worker_threads';

/** An error as it crosses threads: its message and the fields it carried (PostgreSQL's `code`, `detail`...). */
export interface SerializedError {
  name: string;
  message: string;
  fields: Record<string, unknown>;
}

/** A thread's answer to the call of the same id. */
export type ThreadReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: SerializedError };

const primitive = (value: unknown) =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/** Keeps the error's primitive fields but not `params`: a statement's values stay in the thread. */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields = Object.fromEntries(
    Object.entries(error).filter(([key, value]) => key !== 'params' && primitive(value)),
  );
  return { name: error.name, message: error.message, fields };
}

export function deserializeError(serialized: SerializedError): Error {
  const error = Object.assign(new Error(serialized.message), serialized.fields);
  error.name = serialized.name;
  return error;
}

/**
 * Calls to a worker thread, each answered by a reply of its id. While any is unanswered the thread
 * keeps the process alive, as a socket would; idle, it lets the process end. When the thread ends
 * (an uncaught error, or its exit) every unanswered and later call fails with the reason.
 */
export class ThreadCalls {
  readonly #worker: Worker;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  #nextId = 1;
  #ended: Error | undefined;

  /** `onEnd` hears once why the thread ended; `exitReason` words an exit for the calls it fails. */
  constructor(worker: Worker, exitReason: (code: number) => string, onEnd: (reason: Error) => void) {
    this.#worker = worker;
    const end = (reason: Error) => {
      if (this.#ended !== undefined) return;
      this.#ended = reason;
      onEnd(reason);
      for (const pending of this.#pending.values()) pending.reject(reason);
      this.#pending.clear();
    };
    // A thread may answer several calls in one message: one wake-up of this thread for them all.
    worker.on('message', (replies: ThreadReply | ThreadReply[]) => {
      for (const reply of Array.isArray(replies) ? replies : [replies]) this.#settle(reply);
    });
    worker.on('error', end);
    worker.on('exit', (code) => end(new Error(exitReason(code))));
    worker.unref();
  }

  /** Calls not answered yet. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Sends `request` with an id of its own and answers with the thread's reply to it. */
  call(request: object): Promise<unknown> {
    if (this.#ended !== undefined) return Promise.reject(this.#ended);
    const id = this.#nextId;
    this.#nextId += 1;
    if (this.#pending.size === 0) this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#worker.postMessage({ ...request, id });
    });
  }

  #settle(reply: ThreadReply): void {
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#worker.unref();
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(deserializeError(reply.error));
  }
}
