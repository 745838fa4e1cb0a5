import type { KeyValueStorage } from '@entry/client';

export interface ObservedStorage extends KeyValueStorage {
  /** Calls `listener` after every write or removal made through this object. */
  subscribe(listener: () => void): () => void;
}

/**
 * Session storage that tells the pages when it changes, so a refresh made deep in the request
 * pipeline (a stale token renewed before a call) updates "when the session ends" on screen too.
 */
export function observeStorage(storage: KeyValueStorage): ObservedStorage {
  const listeners = new Set<() => void>();
  const changed = () => {
    for (const listener of listeners) listener();
  };
  return {
    getItem: (key) => storage.getItem(key),
    setItem(key, value) {
      storage.setItem(key, value);
      changed();
    },
    removeItem(key) {
      storage.removeItem(key);
      changed();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
