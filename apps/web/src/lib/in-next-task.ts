/**
 * Runs `callback` in a task of its own, once the current one (a render and its commit) has
 * finished; returns a function that cancels it. A message, not a timer or an animation frame:
 * those wait in a background tab or under a paused clock.
 */
export function inNextTask(callback: () => void): () => void {
  const channel = new MessageChannel();
  let cancelled = false;
  channel.port1.onmessage = () => {
    channel.port1.close();
    if (!cancelled) callback();
  };
  channel.port2.postMessage(null);
  return () => {
    cancelled = true;
    channel.port1.close();
  };
}
