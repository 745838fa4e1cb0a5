import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { IdentityTokenRecord } from './identity-tokens.ts';
import type { AccessTenant, TenantLogo } from './tenants.ts';

/**
 * The in-process cache of the two public reads a mailing day hammers: the access lookup and the
 * identity-token lookup (docs/rules.md#caches). An entry lives at most `readCacheTtlMs`, so a change
 * made by another process (an operator revoking a mailing, another instance) shows within that
 * time; a change made through this process's database handle removes its entries at once.
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

export interface ReadCache {
  /** The access lookup's tenants by `subdomain:<name>` or `customer:<id>`. */
  access: TtlCache<AccessTenant>;
  /** Identity-token records by the normalised guid or short id they were read with. */
  identityTokens: TtlCache<IdentityTokenRecord>;
  /** Tenants' logos by `<subdomain>:<digest>`; few, as there are few tenants, each a few kilobytes. */
  logos: TtlCache<TenantLogo>;
}

const maxLogoEntries = 100;

/** One cache per database handle: whatever writes through a handle can invalidate what reads through it. */
const caches = new WeakMap<Database, ReadCache>();

export function readCacheFor(db: Database, clock: Clock): ReadCache {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = {
      access: new TtlCache(clock),
      identityTokens: new TtlCache(clock),
      logos: new TtlCache(clock, readCacheTtlMs, maxLogoEntries),
    };
    caches.set(db, cache);
  }
  return cache;
}

export const tokenCacheKeys = (token: { guid: string; shortId: string | null }): string[] =>
  token.shortId === null ? [`guid:${token.guid}`] : [`guid:${token.guid}`, `short:${token.shortId}`];

/** After a write to one identity token (its last use, its locks): its next read goes to the database. */
export function forgetIdentityToken(db: Database, token: { guid: string; shortId: string | null }): void {
  caches.get(db)?.identityTokens.delete(tokenCacheKeys(token));
}

/** After a write to many identity tokens at once (a mailing revoked). */
export function forgetIdentityTokens(db: Database): void {
  caches.get(db)?.identityTokens.clear();
}

/**
 * After a change to a tenant's public details (`tenant update`): its next lookup goes to the
 * database, and no replaced or removed logo is served from here any more.
 */
export function forgetAccessTenant(db: Database, tenant: { subdomain: string; customerId: number }): void {
  const cache = caches.get(db);
  cache?.access.delete([`subdomain:${tenant.subdomain}`, `customer:${tenant.customerId}`]);
  cache?.logos.clear();
}
