import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';

/**
 * The in-process cache of the public reads a mailing day hammers: the access lookup (with its logos)
 * and the identity-token lookup, each kept by its store (docs/rules.md#caches). An entry lives at
 * most `readCacheTtlMs`, so a change made by another process (an operator revoking a mailing,
 * another instance) shows within that time; a change made through this process's database handle
 * removes its entries at once.
 *
 * Only answers that found something are kept: an unknown token or subdomain is looked up every
 * time, so a token issued a moment ago resolves at once and unknown-token failures still count.
 */
export const readCacheTtlMs = 5_000;
const maxEntriesPerKind = 10_000;

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class TtlCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  /** Bumped by every invalidation, so a load that started before one never stores its stale answer. */
  #generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = readCacheTtlMs,
    private readonly capacity = maxEntriesPerKind,
  ) {}

  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const now = this.clock.now().getTime();
    const entry = this.#entries.get(key);
    if (entry !== undefined && entry.expiresAt > now && entry.expiresAt - now <= this.ttlMs) {
      return entry.value;
    }
    if (entry !== undefined) this.#entries.delete(key);
    const generation = this.#generation;
    const value = await load();
    if (value !== null && generation === this.#generation) {
      if (this.#entries.size >= this.capacity) {
        const oldest = this.#entries.keys().next();
        if (oldest.done !== true) this.#entries.delete(oldest.value);
      }
      this.#entries.set(key, { value, expiresAt: now + this.ttlMs });
    }
    return value;
  }

  delete(keys: Iterable<string>): void {
    this.#generation += 1;
    for (const key of keys) this.#entries.delete(key);
  }

  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
  }
}

/**
 * One cache per database handle, made at its first read: whatever writes through a handle can
 * invalidate what reads through it. Each store that caches keeps its own and forgets its entries.
 */
export function cachePerHandle<V>(capacity = maxEntriesPerKind): {
  of(db: Database, clock: Clock): TtlCache<V>;
  /** The handle's cache, or undefined when nothing has been read through it (nothing to forget). */
  made(db: Database): TtlCache<V> | undefined;
} {
  const caches = new WeakMap<Database, TtlCache<V>>();
  return {
    of(db, clock) {
      let cache = caches.get(db);
      if (cache === undefined) {
        cache = new TtlCache<V>(clock, readCacheTtlMs, capacity);
        caches.set(db, cache);
      }
      return cache;
    },
    made: (db) => caches.get(db),
  };
}
