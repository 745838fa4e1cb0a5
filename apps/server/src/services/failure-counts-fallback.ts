import type { Redis } from 'ioredis';
import {
  type FailureCountStore,
  MemoryFailureCountStore,
  RedisFailureCountStore,
  type Taken,
} from './rate-limit.ts';

/**
 * The per-address failure counts of several instances, shared through Redis while it answers.
 * Redis is an accelerator, not a dependency: while it is away each instance counts in its own
 * memory (the same budget, per instance) without waiting on it, and what it counted there is
 * added to Redis when it answers again.
 */

/** Redis answers within this or counts as away: a sign-in must not wait longer on it. */
const redisCommandTimeoutMs = 300;
/** How often a Redis that went away is asked again. */
const probeIntervalMs = 1000;
/** How long start-up waits for Redis before it counts in memory. */
const startWaitMs = 2000;

export class FallbackFailureCountStore implements FailureCountStore {
  readonly #local = new MemoryFailureCountStore();
  readonly #shared: RedisFailureCountStore;
  readonly #redis: Redis;
  readonly #onChange: (reason: string | undefined) => void;
  /** Why the counts are this instance's own, or undefined while they are shared. */
  #awayReason: string | undefined;
  #probe: NodeJS.Timeout | undefined;
  /** A return to Redis is under way (its `ready` and the probe can both start one). */
  #returning = false;
  #closed = false;

  constructor(redis: Redis, prefix: string, onChange: (reason: string | undefined) => void) {
    this.#redis = redis;
    this.#shared = new RedisFailureCountStore(redis, prefix);
    this.#onChange = onChange;
  }

  /** Why the counts are not shared right now, or undefined while they are. */
  get awayReason(): string | undefined {
    return this.#awayReason;
  }

  take(key: string, now: Date): Promise<Taken> {
    return this.#either(
      () => this.#shared.take(key, now),
      () => this.#local.take(key, now),
    );
  }

  giveBack(key: string, window: number): Promise<void> {
    return this.#either(
      () => this.#shared.giveBack(key, window),
      () => this.#local.giveBack(key, window),
    );
  }

  count(key: string, now: Date): Promise<number> {
    return this.#either(
      () => this.#shared.count(key, now),
      () => this.#local.count(key, now),
    );
  }

  /** Counts in memory from now on, and asks Redis again until it answers. */
  markAway(reason: string): void {
    if (this.#awayReason !== undefined || this.#closed) return;
    this.#awayReason = reason;
    this.#onChange(reason);
    this.#scheduleProbe();
  }

  /** Shares the counts again, after adding to Redis what this instance counted alone. */
  async markBack(): Promise<void> {
    if (this.#awayReason === undefined || this.#closed || this.#returning) return;
    this.#returning = true;
    const kept = this.#local.takeAll();
    try {
      await this.#shared.addAll(kept);
    } catch (error) {
      this.#local.addAll(kept);
      throw error;
    } finally {
      this.#returning = false;
    }
    this.#awayReason = undefined;
    clearTimeout(this.#probe);
    this.#onChange(undefined);
    // Attempts that took a unit in memory while the first units were on their way.
    const late = this.#local.takeAll();
    await this.#shared.addAll(late).catch(() => this.#local.addAll(late));
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#probe);
  }

  async #either<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (this.#awayReason !== undefined) return local();
    try {
      return await shared();
    } catch (error) {
      this.markAway(error instanceof Error ? error.message : String(error));
      return local();
    }
  }

  #scheduleProbe(): void {
    clearTimeout(this.#probe);
    if (this.#closed) return;
    this.#probe = setTimeout(() => {
      this.#redis
        .ping()
        .then(() => this.markBack())
        .catch(() => this.#scheduleProbe());
    }, probeIntervalMs);
    this.#probe.unref();
  }
}

/**
 * Connects to Redis for the failure counts: commands time out quickly and are never queued while
 * it is away, so a request never waits on a Redis that cannot answer. Start-up waits briefly for
 * it; if it does not come, the counts start in memory and move to Redis once it answers. Its
 * client library is loaded here, so an instance without Redis never holds it (decision record 029).
 */
export async function connectFailureCounts(
  redisUrl: string,
  onChange: (reason: string | undefined) => void,
): Promise<{ store: FallbackFailureCountStore; close(): void }> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, {
    enableOfflineQueue: false,
    commandTimeout: redisCommandTimeoutMs,
    connectTimeout: startWaitMs,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const store = new FallbackFailureCountStore(redis, 'entry:', onChange);
  // The store logs each change once; ioredis would otherwise print every reconnection's error.
  redis.on('error', (error: Error) => store.markAway(error.message));
  redis.on('end', () => store.markAway('the connection to Redis ended'));
  redis.on('close', () => store.markAway('the connection to Redis closed'));
  redis.on('ready', () => {
    store.markBack().catch((error: unknown) => store.markAway(String(error)));
  });
  await new Promise<void>((resolve) => {
    const started = setTimeout(resolve, startWaitMs);
    redis.once('ready', () => {
      clearTimeout(started);
      resolve();
    });
  });
  if (redis.status !== 'ready') store.markAway('Redis did not answer at start');
  return {
    store,
    close() {
      store.close();
      redis.disconnect();
    },
  };
}
