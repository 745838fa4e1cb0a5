import { errorBodySchema } from '@entry/domain';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
} from 'fastify';
import type { Redis } from 'ioredis';
import type { ApiError } from '../api-error.ts';
import { clientClosedRequest } from '../client-gone.ts';
import type { Clock } from '../config.ts';
import { refuse } from '../refusals.ts';
import { traced } from '../tracing.ts';
import { budgetKeyOfAddress } from './client-addresses.ts';

/**
 * Per-address budgets of failed attempts, an IPv6 client's /64 counted as one address. Only failures (4xx answers) are kept,
 * so a carrier's shared address does not block the many consumers behind it who succeed; the
 * per-token and per-account locks do the rest.
 *
 * An attempt is paid for before it is judged: it takes a unit of its address's budget as it
 * arrives and gives it back once it has succeeded, so a burst of any size gets at most the budget
 * judged. The window slides, approximated from two fixed windows: the current one's count plus
 * the previous one's weighted by how much of it still overlaps the last 10 minutes.
 */

export const failureWindowMs = 10 * 60_000;

/** An attempt's unit of budget, taken in the fixed window `window`. */
export interface Taken {
  window: number;
  /** Units taken in that window, this one included. */
  current: number;
  /** Units kept in the window before it. */
  previous: number;
}

export interface FailureCountStore {
  /** Takes one unit of `key`'s budget in the window holding `now`, atomically. */
  take(key: string, now: Date): Promise<Taken>;
  /** Gives back a unit taken in `window` by an attempt that did not fail. */
  giveBack(key: string, window: number): Promise<void>;
  /** Units kept for `key` over the sliding window ending at `now`. */
  count(key: string, now: Date): Promise<number>;
}

function windowIndex(now: Date): number {
  return Math.floor(now.getTime() / failureWindowMs);
}

/** How far into its fixed window `now` is, from 0 to 1. */
function elapsedShare(now: Date): number {
  return (now.getTime() % failureWindowMs) / failureWindowMs;
}

function slidingCount(current: number, previous: number, now: Date): number {
  return current + previous * (1 - elapsedShare(now));
}

/**
 * When one more attempt fits the budget again: once the previous window's weight has faded enough,
 * or, when the current window alone is full, once the current window has become the previous one.
 */
export function retryAfterSeconds(taken: Taken, limit: number, now: Date): number {
  const kept = taken.current - 1;
  let waitMs: number;
  if (kept + 1 > limit) {
    const fadedShare = Math.max(0, 1 - (limit - 1) / kept);
    waitMs = (1 - elapsedShare(now)) * failureWindowMs + fadedShare * failureWindowMs;
  } else {
    const fadedShare = taken.previous === 0 ? 0 : 1 - (limit - 1 - kept) / taken.previous;
    waitMs = Math.max(0, fadedShare - elapsedShare(now)) * failureWindowMs;
  }
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/** Units kept for one key in one fixed window, as moved between stores. */
export interface KeptUnits {
  key: string;
  window: number;
  units: number;
}

/** Costs the same per attempt whatever the number of addresses: old windows are dropped whole. */
export class MemoryFailureCountStore implements FailureCountStore {
  readonly #windows = new Map<number, Map<string, number>>();

  /** Everything kept, which the store then forgets. */
  takeAll(): KeptUnits[] {
    const kept = [...this.#windows].flatMap(([window, counts]) =>
      [...counts].map(([key, units]) => ({ key, window, units })),
    );
    this.#windows.clear();
    return kept;
  }

  /** Keeps `kept` again, on top of what the store holds. */
  addAll(kept: readonly KeptUnits[]): void {
    for (const { key, window, units } of kept) {
      const counts = this.#countsOf(window);
      counts.set(key, (counts.get(key) ?? 0) + units);
    }
  }

  async take(key: string, now: Date): Promise<Taken> {
    const window = windowIndex(now);
    const counts = this.#countsOf(window);
    const current = (counts.get(key) ?? 0) + 1;
    counts.set(key, current);
    return { window, current, previous: this.#windows.get(window - 1)?.get(key) ?? 0 };
  }

  async giveBack(key: string, window: number): Promise<void> {
    const counts = this.#windows.get(window);
    const current = counts?.get(key) ?? 0;
    if (current > 1) counts?.set(key, current - 1);
    else counts?.delete(key);
  }

  async count(key: string, now: Date): Promise<number> {
    const window = windowIndex(now);
    return slidingCount(
      this.#windows.get(window)?.get(key) ?? 0,
      this.#windows.get(window - 1)?.get(key) ?? 0,
      now,
    );
  }

  #countsOf(window: number): Map<string, number> {
    let counts = this.#windows.get(window);
    if (counts === undefined) {
      for (const old of this.#windows.keys()) if (old < window - 1) this.#windows.delete(old);
      counts = new Map();
      this.#windows.set(window, counts);
    }
    return counts;
  }
}

const redisSpan = (operation: string) => ({ 'db.system.name': 'redis', 'db.operation.name': operation });

/** Shared by every instance that uses the same Redis and prefix. */
export class RedisFailureCountStore implements FailureCountStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  #slot(key: string, window: number): string {
    return `${this.prefix}failures:${key}:${window}`;
  }

  async take(key: string, now: Date): Promise<Taken> {
    const window = windowIndex(now);
    const slot = this.#slot(key, window);
    const results = await traced('redis MULTI', redisSpan('MULTI'), () =>
      this.redis
        .multi()
        .incr(slot)
        .pexpire(slot, failureWindowMs * 2)
        .get(this.#slot(key, window - 1))
        .exec(),
    );
    const [current, , previous] = (results ?? []).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    return { window, current: Number(current), previous: Number(previous ?? 0) };
  }

  async giveBack(key: string, window: number): Promise<void> {
    await traced('redis DECR', redisSpan('DECR'), () => this.redis.decr(this.#slot(key, window)));
  }

  /** Adds units kept elsewhere (an instance's own memory while Redis was away), in one round trip. */
  async addAll(kept: readonly KeptUnits[]): Promise<void> {
    if (kept.length === 0) return;
    const pipeline = this.redis.multi();
    for (const { key, window, units } of kept) {
      const slot = this.#slot(key, window);
      pipeline.incrby(slot, units).pexpire(slot, failureWindowMs * 2);
    }
    const results = await traced('redis MULTI', redisSpan('MULTI'), () => pipeline.exec());
    for (const [error] of results ?? []) if (error) throw error;
  }

  async count(key: string, now: Date): Promise<number> {
    const window = windowIndex(now);
    const [current, previous] = await traced('redis MGET', redisSpan('MGET'), () =>
      this.redis.mget(this.#slot(key, window), this.#slot(key, window - 1)),
    );
    return slidingCount(Number(current ?? 0), Number(previous ?? 0), now);
  }
}

/**
 * How a route takes part: `true` for attempts (sign-in, lookup, MFA, reset, launch), which pay a
 * unit before they run; `'read'` for reads, which always run and pay only when they fail, so a
 * successful read is never limited and a failing one past the budget is answered 429 instead;
 * `'every'` for calls that answer alike whatever happened (a reset request), which keep their unit.
 */
export type FailureLimitMode = true | 'read' | 'every';

declare module 'fastify' {
  interface FastifyContextConfig {
    failureLimited?: FailureLimitMode;
  }
}

export interface FailureLimiterOptions {
  store: FailureCountStore;
  /** Failures per address per window before 429 (`RATE_LIMIT_FAILURES`). */
  limit: number;
  clock: Clock;
}

/** A refusal keeps its unit; the limiter's own 429 does not, nor a request whose client left unanswered. */
function isCountedFailure(statusCode: number): boolean {
  return statusCode >= 400 && statusCode < 500 && statusCode !== 429 && statusCode !== clientClosedRequest;
}

/**
 * Adds the limiter's hooks to every route that opts in with
 * `config: { failureLimited: true }` (or `'read'`). Call before the routes are registered.
 */
export function installFailureLimiter(app: FastifyInstance, options: FailureLimiterOptions): void {
  const { store, limit, clock } = options;
  /** The units taken by attempts still being judged, with the address key they were taken under. */
  const taken = new WeakMap<FastifyRequest, { key: string; unit: Taken }>();

  // An unreachable store must not take sign-in down with it: the per-token and per-account locks
  // in the database still hold, so the limiter fails open and says so in the log.
  const storeDown = (request: FastifyRequest, error: unknown) => {
    request.log.error({ err: error }, 'failure limiter store unavailable');
  };

  /** Takes a unit for `request`; the refusal to answer when none was left, after giving it back. */
  const pay = async (request: FastifyRequest, reply: FastifyReply): Promise<ApiError | undefined> => {
    const now = clock.now();
    const key = budgetKeyOfAddress(request.ip);
    let unit: Taken;
    try {
      unit = await store.take(key, now);
    } catch (error) {
      storeDown(request, error);
      return undefined;
    }
    if (slidingCount(unit.current, unit.previous, now) <= limit) {
      taken.set(request, { key, unit });
      return undefined;
    }
    await store.giveBack(key, unit.window).catch((error: unknown) => storeDown(request, error));
    reply.header('retry-after', String(retryAfterSeconds(unit, limit, now)));
    return refuse('tooManyRequests');
  };

  const payBeforeAttempt: onRequestHookHandler = (request, reply, done) => {
    pay(request, reply).then(done, done);
  };

  const settleAttempt = async (request: FastifyRequest, reply: FastifyReply) => {
    const paid = taken.get(request);
    if (paid === undefined || isCountedFailure(reply.statusCode)) return;
    taken.delete(request);
    await store.giveBack(paid.key, paid.unit.window).catch((error: unknown) => storeDown(request, error));
  };

  const settleRead = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    if (!isCountedFailure(reply.statusCode)) return payload;
    const refusal = await pay(request, reply);
    if (refusal === undefined) return payload;
    reply.code(429).type('application/json; charset=utf-8');
    return JSON.stringify(refusal.toBody());
  };

  // Settled before the answer leaves, so the caller's next attempt already sees its budget.
  const settle =
    (mode: 'read' | true): onSendHookHandler =>
    (request, reply, payload, done) => {
      const settled =
        mode === 'read'
          ? settleRead(request, reply, payload)
          : settleAttempt(request, reply).then(() => payload);
      settled.then(
        (answer) => done(null, answer),
        (error: Error) => done(error),
      );
    };

  // Only the routes that take part get the hooks: every other request (the hot reads among them)
  // passes no hook of the limiter at all.
  app.addHook('onRoute', (route) => {
    const mode = route.config?.failureLimited;
    if (mode === undefined) return;
    const response = route.schema?.response;
    if (route.schema !== undefined && typeof response === 'object' && response !== null) {
      // A copy, as the cross-site guard makes: routes may share one response object.
      route.schema = { ...route.schema, response: { 429: errorBodySchema, ...response } };
    }
    if (mode !== 'read') route.onRequest = [payBeforeAttempt, ...hooksOf(route.onRequest)];
    if (mode !== 'every') route.onSend = [settle(mode), ...hooksOf(route.onSend)];
  });
}

function hooksOf<Hook>(hooks: Hook | Hook[] | undefined): Hook[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? hooks : [hooks];
}
