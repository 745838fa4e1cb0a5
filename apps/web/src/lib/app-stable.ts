/**
 * How long no resource may finish loading before the app counts as stable: the service worker's
 * precaching then competes with nothing the page still fetches (docs/rules.md#budgets).
 */
export const networkQuietMs = 2_000;

function observeResourceLoads(onLoad: () => void): PerformanceObserver | undefined {
  if (typeof PerformanceObserver !== 'function') return undefined;
  if (!PerformanceObserver.supportedEntryTypes?.includes('resource')) return undefined;
  const observer = new PerformanceObserver(onLoad);
  observer.observe({ type: 'resource' });
  return observer;
}

/**
 * Runs `callback` once the page has loaded, no resource has finished loading for
 * `networkQuietMs` and the browser is idle, or after `latestAfterMs` at the latest, whichever
 * comes first, and only once.
 */
export function whenAppIsStable(callback: () => void, latestAfterMs: number): () => void {
  let done = false;
  const runOnce = () => {
    if (done) return;
    done = true;
    cleanup();
    callback();
  };
  const latest = window.setTimeout(runOnce, latestAfterMs);
  let quietPeriod: number | undefined;
  let idleHandle: number | undefined;
  let resourceLoads: PerformanceObserver | undefined;
  const whenIdle = () => {
    resourceLoads?.disconnect();
    if (typeof window.requestIdleCallback === 'function')
      idleHandle = window.requestIdleCallback(runOnce, { timeout: latestAfterMs });
    else runOnce();
  };
  const restartQuietPeriod = () => {
    window.clearTimeout(quietPeriod);
    quietPeriod = window.setTimeout(whenIdle, networkQuietMs);
  };
  const onLoad = () => {
    resourceLoads = observeResourceLoads(restartQuietPeriod);
    restartQuietPeriod();
  };
  function cleanup() {
    window.clearTimeout(latest);
    window.clearTimeout(quietPeriod);
    resourceLoads?.disconnect();
    window.removeEventListener('load', onLoad);
    if (idleHandle !== undefined) window.cancelIdleCallback(idleHandle);
  }
  if (document.readyState === 'complete') onLoad();
  else window.addEventListener('load', onLoad, { once: true });
  return () => {
    done = true;
    cleanup();
  };
}
