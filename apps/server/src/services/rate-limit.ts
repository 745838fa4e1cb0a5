import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
} from 'fastify';
import type { Redis } from 'ioredis';
import { clientClosedRequest } from '../client-gone.ts';
import type { Clock } from '../config.ts';
import { ApiError } from '../errors.ts';

/**
 * Per-IP limits on failed attempts (DESIGN.md section 5). Only failures (4xx answers) count, so a
 * carrier's shared address does not block the many consumers behind it who succeed; the per-token
 * and per-account locks do the rest.
 *
 * Counting uses a sliding window approximated from two fixed windows: the current window's count
 * plus the previous window's count weighted by how much of it still overlaps the last 10 minutes.
 * Window numbers come from the injected clock, so tests move time instead of sleeping, and every
 * instance sharing a Redis store sees the same counts.
 */

export const failureWindowMs = 10 * 60_000;

export interface FailureCountStore {
  /** Adds one failure for `key` in the window holding `now`. */
  add(key: string, now: Date): Promise<void>;
  /** Failures for `key` over the sliding window ending at `now`. */
  count(key: string, now: Date): Promise<number>;
}

function windowIndex(now: Date): number {
  return Math.floor(now.getTime() / failureWindowMs);
}

function slidingCount(current: number, previous: number, now: Date): number {
  const elapsed = (now.getTime() % failureWindowMs) / failureWindowMs;
  return current + previous * (1 - elapsed);
}

export class MemoryFailureCountStore implements FailureCountStore {
  readonly #counts = new Map<string, number>();

  async add(key: string, now: Date): Promise<void> {
    const current = windowIndex(now);
    const slot = `${key}\u0000${current}`;
    this.#counts.set(slot, (this.#counts.get(slot) ?? 0) + 1);
    this.#forgetBefore(current - 1);
  }

  async count(key: string, now: Date): Promise<number> {
    const current = windowIndex(now);
    return slidingCount(
      this.#counts.get(`${key}\u0000${current}`) ?? 0,
      this.#counts.get(`${key}\u0000${current - 1}`) ?? 0,
      now,
    );
  }

  #forgetBefore(oldestKept: number): void {
    for (const slot of this.#counts.keys()) {
      const index = Number(slot.slice(slot.lastIndexOf('\u0000') + 1));
      if (index < oldestKept) this.#counts.delete(slot);
    }
  }
}

/** Shared by every instance that uses the same Redis and prefix. */
export class RedisFailureCountStore implements FailureCountStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #slot(key: string, index: number): string {
    return `${this.prefix}failures:${key}:${index}`;
  }

  async add(key: string, now: Date): Promise<void> {
    const slot = this.#slot(key, windowIndex(now));
    await this.redis
      .multi()
      .incr(slot)
      .pexpire(slot, failureWindowMs * 2)
      .exec();
  }

  async count(key: string, now: Date): Promise<number> {
    const current = windowIndex(now);
    const [currentCount, previousCount] = await this.redis.mget(
      this.#slot(key, current),
      this.#slot(key, current - 1),
    );
    return slidingCount(Number(currentCount ?? 0), Number(previousCount ?? 0), now);
  }
}

/**
 * How a route takes part: `true` for attempts (sign-in, lookup, MFA, reset, launch), refused
 * before they run once the address is over the limit; `'read'` for reads, which always run and
 * are refused only when they would fail, so a successful read is never limited.
 */
export type FailureLimitMode = true | 'read';

declare module 'fastify' {
  interface FastifyContextConfig {
    failureLimited?: FailureLimitMode;
  }
}

export const rateLimitMessage = 'Too many failed attempts from your network. Please try again later.';

export function tooManyRequests(): ApiError {
  return new ApiError(429, 'ToManyRequests', rateLimitMessage);
}

/**
 * The limiter's 429, with `Retry-After` set on `reply`: the seconds left of the counting window
 * holding now, after which its failures start to weigh less.
 */
function refusedWithRetryAfter(reply: FastifyReply, clock: Clock): ApiError {
  const intoWindowMs = clock.now().getTime() % failureWindowMs;
  reply.header('retry-after', String(Math.ceil((failureWindowMs - intoWindowMs) / 1000)));
  return tooManyRequests();
}

export interface FailureLimiterOptions {
  store: FailureCountStore;
  /** Failures per address per window before 429 (`RATE_LIMIT_FAILURES`). */
  limit: number;
  clock: Clock;
}

/** A refusal counts; the limiter's own 429 does not, nor a request whose client left unanswered. */
function isCountedFailure(statusCode: number): boolean {
  return statusCode >= 400 && statusCode < 500 && statusCode !== 429 && statusCode !== clientClosedRequest;
}

/**
 * Adds the limiter's hooks to every route that opts in with
 * `config: { failureLimited: true }` (or `'read'`). Call before the routes are registered.
 */
export function installFailureLimiter(app: FastifyInstance, options: FailureLimiterOptions): void {
  const { store, limit, clock } = options;
  // An unreachable store must not take sign-in down with it: the per-token and per-account locks
  // in the database still hold, so the limiter fails open and says so in the log.
  const overLimit = async (request: FastifyRequest) => {
    try {
      return (await store.count(request.ip, clock.now())) >= limit;
    } catch (error) {
      request.log.error({ err: error }, 'failure limiter store unavailable');
      return false;
    }
  };

  const refuseOverLimit: onRequestHookHandler = (request, reply, done) => {
    overLimit(request).then((over) => done(over ? refusedWithRetryAfter(reply, clock) : undefined), done);
  };

  const countFailure = async (
    mode: FailureLimitMode,
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ) => {
    if (mode === 'read' && (await overLimit(request))) {
      reply.code(429).type('application/json; charset=utf-8');
      return JSON.stringify(refusedWithRetryAfter(reply, clock).toBody());
    }
    // Counted before the answer leaves, so the caller's next attempt already sees it.
    try {
      await store.add(request.ip, clock.now());
    } catch (error) {
      request.log.error({ err: error }, 'failure limiter store unavailable');
    }
    return payload;
  };

  const countFailures =
    (mode: FailureLimitMode): onSendHookHandler =>
    (request, reply, payload, done) => {
      if (!isCountedFailure(reply.statusCode)) {
        done(null, payload);
        return;
      }
      countFailure(mode, request, reply, payload).then(
        (answer) => done(null, answer),
        (error: Error) => done(error),
      );
    };

  // Only the routes that take part get the hooks: every other request (the hot reads among them)
  // passes no hook of the limiter at all.
  app.addHook('onRoute', (route) => {
    const mode = route.config?.failureLimited;
    if (mode === undefined) return;
    if (mode === true) route.onRequest = [refuseOverLimit, ...hooksOf(route.onRequest)];
    route.onSend = [countFailures(mode), ...hooksOf(route.onSend)];
  });
}

function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
