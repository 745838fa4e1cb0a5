import { serviceWorkerRegistrationDelayMs, updateCheckIntervalMs } from '@entry/domain';
import type { RegisterSWOptions } from 'vite-plugin-pwa/types';
import { whenAppIsStable } from './app-stable.ts';

type RegisterSw = (options: RegisterSWOptions) => (reloadPage?: boolean) => Promise<void>;

export interface AppUpdateDependencies {
  loadRegisterSw: () => Promise<{ registerSW: RegisterSw }>;
  caches: Pick<CacheStorage, 'keys' | 'delete'> | undefined;
  /** Drops the tokens that must not outlive an update. */
  dropTokens: () => Promise<void>;
  /** Loads the app again at its root. */
  reloadAtRoot: () => void;
  /** Whether this browser can run a service worker at all. */
  supportsServiceWorker: boolean;
  /** Whether a service worker controls the page (not on the very first visit). */
  isControlled: () => boolean;
}

export interface AppUpdate {
  /** Registers the worker once the app is stable (or after 30 s); returns a function that stops the checks. */
  start(): () => void;
  /** Asks the worker to look for a new version now. */
  checkForUpdate(): void;
  /** True once a new version is installed and waiting. */
  isUpdateWaiting(): boolean;
  subscribe(listener: () => void): () => void;
  /** The toast's Refresh: clear the caches, drop a token without role or restriction, reload at the root. */
  applyUpdate(): Promise<void>;
}

/**
 * The new-version flow ("Update Available") over vite-plugin-pwa in prompt mode:
 * the waiting worker takes over only when the person chooses Refresh.
 */
export function createAppUpdate(dependencies: AppUpdateDependencies): AppUpdate {
  const listeners = new Set<() => void>();
  let updateWaiting = false;
  let registration: ServiceWorkerRegistration | undefined;
  let activateWaitingWorker: ((reloadPage?: boolean) => Promise<void>) | undefined;
  let started = false;
  let checkWhenRegistered = false;

  const checkForUpdate = () => {
    if (registration === undefined) {
      // The worker registers once the app is stable: a check asked for before then is not lost.
      checkWhenRegistered = true;
      return;
    }
    registration.update().catch(() => {
      // Offline or the server is restarting: the next interval or visibility change tries again.
    });
  };

  const register = async () => {
    const { registerSW } = await dependencies.loadRegisterSw();
    activateWaitingWorker = registerSW({
      onNeedRefresh() {
        updateWaiting = true;
        for (const listener of listeners) listener();
      },
      onNeedReload: dependencies.reloadAtRoot,
      onRegisteredSW(_url, registered) {
        registration = registered;
        if (registered !== undefined && checkWhenRegistered) {
          checkWhenRegistered = false;
          checkForUpdate();
        }
      },
    });
  };

  return {
    start() {
      if (started || !dependencies.supportsServiceWorker) return () => {};
      started = true;
      const cancelRegistration = whenAppIsStable(() => {
        void register();
      }, serviceWorkerRegistrationDelayMs);
      const interval = window.setInterval(checkForUpdate, updateCheckIntervalMs);
      const onVisibilityChange = () => {
        if (document.visibilityState === 'visible') checkForUpdate();
      };
      document.addEventListener('visibilitychange', onVisibilityChange);
      return () => {
        cancelRegistration();
        window.clearInterval(interval);
        document.removeEventListener('visibilitychange', onVisibilityChange);
        started = false;
      };
    },
    checkForUpdate,
    isUpdateWaiting: () => updateWaiting,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async applyUpdate() {
      const { caches } = dependencies;
      if (caches !== undefined) {
        const keys = await caches.keys();
        await Promise.all(keys.map((key) => caches.delete(key)));
      }
      await dependencies.dropTokens();
      if (activateWaitingWorker !== undefined) {
        // On a controlled page the new worker's `controlling` event calls reloadAtRoot (onNeedReload).
        await activateWaitingWorker(true);
        if (dependencies.isControlled()) return;
      }
      // A page no worker controls (first visit) never sees `controlling`: reload now.
      dependencies.reloadAtRoot();
    },
  };
}

export const appUpdate = createAppUpdate({
  // Loaded on demand, so the registration code and workbox-window stay out of the entry chunk.
  loadRegisterSw: () => import('virtual:pwa-register'),
  caches: typeof caches === 'undefined' ? undefined : caches,
  // Loaded on Refresh only: the token rules and their schemas stay out of the entry chunk.
  dropTokens: () =>
    import('./drop-tokens-on-update.ts').then(({ dropTokensWithoutRole }) =>
      dropTokensWithoutRole(window.sessionStorage),
    ),
  reloadAtRoot: () => window.location.assign('/'),
  supportsServiceWorker: 'serviceWorker' in navigator,
  isControlled: () => 'serviceWorker' in navigator && navigator.serviceWorker.controller !== null,
});
