import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { networkQuietMs, whenAppIsStable } from './app-stable.ts';

/** Stands in for the browser's PerformanceObserver: `finishLoading()` reports a resource that finished. */
class FakeResourceObserver {
  static supportedEntryTypes = ['resource'];
  static instances: FakeResourceObserver[] = [];
  disconnected = false;
  constructor(private readonly onEntries: () => void) {
    FakeResourceObserver.instances.push(this);
  }
  observe() {}
  disconnect() {
    this.disconnected = true;
  }
  static finishLoading() {
    for (const observer of FakeResourceObserver.instances) if (!observer.disconnected) observer.onEntries();
  }
}

describe('whenAppIsStable', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    FakeResourceObserver.instances = [];
    vi.stubGlobal('PerformanceObserver', FakeResourceObserver);
    Object.defineProperty(window, 'requestIdleCallback', { value: undefined, configurable: true });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('waits until no resource has finished loading for the quiet period', async () => {
    const callback = vi.fn();
    const cancel = whenAppIsStable(callback, 30_000);
    await vi.advanceTimersByTimeAsync(networkQuietMs - 1);
    FakeResourceObserver.finishLoading();
    await vi.advanceTimersByTimeAsync(networkQuietMs - 1);
    expect(callback).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(callback).toHaveBeenCalledTimes(1);
    expect(FakeResourceObserver.instances.every((observer) => observer.disconnected)).toBe(true);
    cancel();
  });

  it('runs after the latest time even when the network never goes quiet, and only once', async () => {
    const callback = vi.fn();
    const cancel = whenAppIsStable(callback, 30_000);
    for (let elapsed = 0; elapsed < 30_000; elapsed += networkQuietMs / 2) {
      FakeResourceObserver.finishLoading();
      await vi.advanceTimersByTimeAsync(networkQuietMs / 2);
    }
    expect(callback).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(callback).toHaveBeenCalledTimes(1);
    cancel();
  });

  it('never runs once cancelled', async () => {
    const callback = vi.fn();
    whenAppIsStable(callback, 30_000)();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(callback).not.toHaveBeenCalled();
  });
});
