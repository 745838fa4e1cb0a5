/**
 * Runs `callback` once the page has loaded and the browser is idle, or after `latestAfterMs` at
 * the latest, whichever comes first, and only once.
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
  let idleHandle: number | undefined;
  const onLoad = () => {
    if (typeof window.requestIdleCallback === 'function')
      idleHandle = window.requestIdleCallback(runOnce, { timeout: latestAfterMs });
    else runOnce();
  };
  function cleanup() {
    window.clearTimeout(latest);
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
