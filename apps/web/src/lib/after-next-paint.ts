/**
 * Runs `callback` once the browser has painted the current frame (a task queued from the next
 * animation frame runs after its paint); returns a function that cancels it.
 */
export function afterNextPaint(callback: () => void): () => void {
  let task: number | undefined;
  const frame = window.requestAnimationFrame(() => {
    task = window.setTimeout(callback, 0);
  });
  return () => {
    window.cancelAnimationFrame(frame);
    window.clearTimeout(task);
  };
}
