import {
  type AuthTokenResult,
  createTokenRecord,
  type Scope,
  type StorageKey,
  storageKeys,
  type TokenRecord,
  type TokenState,
  tokenRecordSchema,
  tokenStateOf,
  tokenStorageKey,
} from '@entry/domain';
import { safeParse } from 'zod/v4/core';

/** The part of the Web Storage API the store uses; `sessionStorage` in the browser. */
export type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

interface TokenScopeOption {
  /** Save or remove another scope's token than the store's own (the scope override). */
  scope?: Scope | undefined;
}

export interface TokenStore {
  readonly scope: Scope;
  /** The stored record of the scope, or null when there is none (or it cannot be read). */
  get(options?: TokenScopeOption): TokenRecord | null;
  /** Stores the record with its refresh and expiry times, and the result's session guid. */
  set(result: AuthTokenResult, options?: TokenScopeOption): TokenRecord;
  remove(options?: TokenScopeOption): void;
  /** The token state now; without a token, `token` is '' (and the empty record is stale and expired). */
  state(options?: TokenScopeOption): TokenState;
  sessionGuid(): string | null;
  getItem(key: StorageKey): string | null;
  setItem(key: StorageKey, value: string): void;
  removeItem(key: StorageKey): void;
  /** Forgets the session: the token and every session key that belongs to a signed-in person. */
  clearSession(options?: TokenScopeOption): void;
}

/** Keys that describe a signed-in session and go with it on sign-out. */
const sessionKeys: readonly StorageKey[] = [
  storageKeys.sessionGuid,
  storageKeys.skip2fa,
  storageKeys.mfaComplete,
  storageKeys.idleExpiredTime,
  storageKeys.tokenRedirect,
  storageKeys.tokenTarget,
];

export function createTokenStore(
  storage: KeyValueStorage,
  scope: Scope,
  now: () => number = Date.now,
): TokenStore {
  const keyOf = (options?: TokenScopeOption): string => tokenStorageKey(options?.scope ?? scope);

  const get = (options?: TokenScopeOption): TokenRecord | null => {
    const raw = storage.getItem(keyOf(options));
    if (raw === null) return null;
    try {
      const parsed = safeParse(tokenRecordSchema, JSON.parse(raw));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  };

  const remove = (options?: TokenScopeOption): void => storage.removeItem(keyOf(options));

  return {
    scope,
    get,
    set(result, options) {
      const record = createTokenRecord(result, now());
      storage.setItem(keyOf(options), JSON.stringify(record));
      storage.setItem(storageKeys.sessionGuid, result.sessionGuid);
      return record;
    },
    remove,
    state: (options) => tokenStateOf(get(options), now()),
    sessionGuid: () => storage.getItem(storageKeys.sessionGuid),
    getItem: (key) => storage.getItem(key),
    setItem: (key, value) => storage.setItem(key, value),
    removeItem: (key) => storage.removeItem(key),
    clearSession(options) {
      remove(options);
      for (const key of sessionKeys) storage.removeItem(key);
    },
  };
}
