import type { RegisterSWOptions } from 'vite-plugin-pwa/types';

/** Stands in for vite-plugin-pwa's `virtual:pwa-register` in tests: registers nothing. */
export function registerSW(_options?: RegisterSWOptions): (reloadPage?: boolean) => Promise<void> {
  return async () => {};
}
