import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { RegisterSWOptions } from 'vite-plugin-pwa/types';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpdateToast } from '../components/update-toast/update-toast.tsx';
import { networkQuietMs } from './app-stable.ts';
import { type AppUpdateDependencies, createAppUpdate } from './app-update.ts';
import { dropTokensWithoutRole } from './drop-tokens-on-update.ts';

function jwt(payload: Record<string, unknown>): string {
  return `header.${btoa(JSON.stringify(payload)).replace(/=+$/, '')}.signature`;
}

function tokenRecord(token: string, hasRestrictedAccess: boolean): string {
  return JSON.stringify({ token, accessType: 'Consumer', refreshAt: 0, expiresAt: 0, hasRestrictedAccess });
}

function setup() {
  let options: RegisterSWOptions = {};
  const activateWaitingWorker = vi.fn(async () => {
    options.onNeedReload?.();
  });
  const update = vi.fn(async () => {});
  const registerSW = vi.fn((registerOptions: RegisterSWOptions) => {
    options = registerOptions;
    registerOptions.onRegisteredSW?.('/sw.js', { update } as unknown as ServiceWorkerRegistration);
    return activateWaitingWorker;
  });
  const cacheNames = ['workbox-precache-v2', 'runtime'];
  const dependencies: AppUpdateDependencies = {
    loadRegisterSw: async () => ({ registerSW }),
    caches: { keys: vi.fn(async () => cacheNames), delete: vi.fn(async () => true) },
    dropTokens: async () => dropTokensWithoutRole(window.sessionStorage),
    reloadAtRoot: vi.fn(),
    supportsServiceWorker: true,
    isControlled: () => true,
  };
  const appUpdate = createAppUpdate(dependencies);
  return {
    appUpdate,
    dependencies,
    registerSW,
    update,
    activateWaitingWorker,
    needRefresh: () => options.onNeedRefresh?.(),
  };
}

describe('app update', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('registers the worker once the app is stable, at the latest after 30 s', async () => {
    const { appUpdate, registerSW } = setup();
    Object.defineProperty(window, 'requestIdleCallback', { value: undefined, configurable: true });
    const stop = appUpdate.start();
    // jsdom's document is already loaded; without requestIdleCallback, "stable" is the end of the quiet period.
    await vi.advanceTimersByTimeAsync(networkQuietMs - 1);
    expect(registerSW).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(registerSW).toHaveBeenCalledTimes(1);
    stop();
  });

  it('waits for the idle callback, or 30 s when the page never becomes idle', async () => {
    const { appUpdate, registerSW } = setup();
    Object.defineProperty(window, 'requestIdleCallback', { value: vi.fn(() => 1), configurable: true });
    Object.defineProperty(window, 'cancelIdleCallback', { value: vi.fn(), configurable: true });
    const stop = appUpdate.start();
    await vi.advanceTimersByTimeAsync(29_999);
    expect(registerSW).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(registerSW).toHaveBeenCalledTimes(1);
    stop();
  });

  it('runs a check asked for before the worker is registered once it is', async () => {
    const { appUpdate, registerSW, update } = setup();
    Object.defineProperty(window, 'requestIdleCallback', { value: undefined, configurable: true });
    const stop = appUpdate.start();
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
    expect(registerSW).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(networkQuietMs);
    expect(registerSW).toHaveBeenCalledTimes(1);
    expect(update).toHaveBeenCalledTimes(1);
    stop();
  });

  it('checks for a new version every 60 minutes and whenever the tab becomes visible', async () => {
    const { appUpdate, update } = setup();
    Object.defineProperty(window, 'requestIdleCallback', { value: undefined, configurable: true });
    const stop = appUpdate.start();
    await vi.advanceTimersByTimeAsync(networkQuietMs);
    expect(update).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(60 * 60_000 - networkQuietMs);
    expect(update).toHaveBeenCalledTimes(1);
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
    expect(update).toHaveBeenCalledTimes(2);
    appUpdate.checkForUpdate();
    expect(update).toHaveBeenCalledTimes(3);
    stop();
  });
});

describe('UpdateToast', () => {
  it('appears only when a new version waits, and Refresh clears caches, drops a role-less token and reloads at the root', async () => {
    const { appUpdate, dependencies, activateWaitingWorker, needRefresh } = setup();
    Object.defineProperty(window, 'requestIdleCallback', { value: undefined, configurable: true });
    window.sessionStorage.setItem('consumer-token', tokenRecord(jwt({ user: { context: {} } }), false));
    window.sessionStorage.setItem(
      'admin-token',
      tokenRecord(jwt({ user: { context: { roleId: 2 } } }), false),
    );
    window.sessionStorage.setItem('customer-token', tokenRecord(jwt({}), true));
    vi.useFakeTimers();
    const stop = appUpdate.start();
    await vi.advanceTimersByTimeAsync(networkQuietMs);
    vi.useRealTimers();
    render(<UpdateToast appUpdate={appUpdate} />);
    expect(screen.queryByText('Update Available')).toBeNull();

    await vi.waitFor(() => expect(activateWaitingWorker).toBeDefined());
    await vi.waitFor(() => {
      needRefresh();
      expect(screen.getByRole('alert').textContent).toContain('Update Available');
    });

    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await vi.waitFor(() => expect(dependencies.reloadAtRoot).toHaveBeenCalledTimes(1));
    expect(dependencies.caches?.delete).toHaveBeenCalledWith('workbox-precache-v2');
    expect(dependencies.caches?.delete).toHaveBeenCalledWith('runtime');
    expect(activateWaitingWorker).toHaveBeenCalled();
    expect(window.sessionStorage.getItem('consumer-token')).toBeNull();
    expect(window.sessionStorage.getItem('admin-token')).not.toBeNull();
    expect(window.sessionStorage.getItem('customer-token')).not.toBeNull();
    stop();
  });

  it('on a page no worker controls yet (first visit), Refresh activates the new worker and reloads itself', async () => {
    const { appUpdate, dependencies, activateWaitingWorker, registerSW } = setup();
    dependencies.isControlled = () => false;
    activateWaitingWorker.mockImplementation(async () => {});
    Object.defineProperty(window, 'requestIdleCallback', { value: undefined, configurable: true });
    vi.useFakeTimers();
    const stop = appUpdate.start();
    await vi.advanceTimersByTimeAsync(networkQuietMs);
    vi.useRealTimers();
    expect(registerSW).toHaveBeenCalled();
    await appUpdate.applyUpdate();
    expect(activateWaitingWorker).toHaveBeenCalledTimes(1);
    expect(dependencies.reloadAtRoot).toHaveBeenCalledTimes(1);
    stop();
  });
});
