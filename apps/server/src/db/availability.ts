/**
 * Whether the database can answer now. A statement that fails because the database is out of
 * reach marks it unavailable; from then on API calls are refused at once with 503 while a probe
 * retries in the background, and the first probe that succeeds marks it available again. Each
 * change is reported once, so an outage writes two short log lines, not one per request.
 */

/** Refused without asking the database: it is out of reach, or too busy to take more work. */
export class DatabaseUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

/** Node's socket errors that mean the database's host or port does not answer. */
const socketErrorCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** PostgreSQL's own: the server is shutting down, crashed, or does not take connections yet. */
const unavailableSqlStates = new Set(['57P01', '57P02', '57P03']);

/**
 * node-postgres words its own connection failures without a code: a lost connection, a connect
 * or pool-acquire timeout, and a query that got no answer within `query_timeout`.
 */
const driverMessages = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error',
];

/** `error` and the errors it wraps: drizzle wraps the driver's error as its `cause`. */
function* errorChain(error: unknown): Generator<Error> {
  for (let current = error; current instanceof Error; current = current.cause) yield current;
}

const codeOf = (error: Error) => {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
};

/** True when the driver's `error` says the database is out of reach, rather than that a statement was wrong. */
export function isDatabaseUnreachable(error: unknown): boolean {
  for (const link of errorChain(error)) {
    const code = codeOf(link);
    if (socketErrorCodes.has(code) || unavailableSqlStates.has(code) || code.startsWith('08')) return true;
    if (driverMessages.some((message) => link.message.includes(message))) return true;
  }
  return false;
}

/**
 * Failures a caller should retry later (503 with Retry-After): the database is out of reach, was
 * refused work without being asked, or ran a statement past its timeout (slow, not gone).
 */
export function isDatabaseOutage(error: unknown): boolean {
  return (
    error instanceof DatabaseUnavailableError ||
    isDatabaseUnreachable(error) ||
    [...errorChain(error)].some((link) => codeOf(link) === '57014')
  );
}

export interface AvailabilityOptions {
  /** Asks the database something trivial; rejects while it cannot answer. */
  probe(): Promise<void>;
  /** Hears each change: `reason` when it went away, undefined when it is back. */
  onChange(reason: string | undefined): void;
  probeIntervalMs?: number;
}

export class DatabaseAvailability {
  readonly #options: AvailabilityOptions;
  #unavailableSince: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #rechecking = false;
  #stopped = false;

  constructor(options: AvailabilityOptions) {
    this.#options = options;
  }

  /** Why the database is out of reach, or undefined while it answers. */
  get unavailable(): string | undefined {
    return this.#unavailableSince;
  }

  /**
   * Notes a failed statement: when the failure says the database is out of reach, asks it at once
   * on a connection of its own and marks it unavailable only if that fails too, so one dropped
   * pooled connection is not taken for an outage.
   */
  noteFailure(error: unknown): void {
    if (!isDatabaseUnreachable(error)) return;
    void this.recheck(error);
  }

  /**
   * A pooled connection was lost while idle: the database went away, or dropped only that
   * connection. Asks it at once; answers true when it still answers (the pool replaces the
   * connection), and only to the first of the losses of one moment, so an outage is one change.
   */
  recheck(lost: unknown): Promise<boolean> {
    if (this.#unavailableSince !== undefined || this.#rechecking || this.#stopped)
      return Promise.resolve(false);
    this.#rechecking = true;
    return this.#options
      .probe()
      .then(
        () => true,
        () => {
          this.#markUnavailable(lost);
          return false;
        },
      )
      .finally(() => {
        this.#rechecking = false;
      });
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #markUnavailable(error: unknown): void {
    if (this.#unavailableSince !== undefined || this.#stopped) return;
    this.#unavailableSince = error instanceof Error ? error.message : String(error);
    this.#options.onChange(this.#unavailableSince);
    this.#scheduleProbe();
  }

  #scheduleProbe(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#options.probe().then(
        () => {
          if (this.#stopped) return;
          this.#unavailableSince = undefined;
          this.#options.onChange(undefined);
        },
        () => this.#scheduleProbe(),
      );
    }, this.#options.probeIntervalMs ?? 1000);
    this.#timer.unref();
  }
}
