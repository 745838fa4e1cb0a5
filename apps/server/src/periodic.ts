/**
 * Runs `task` every `intervalMs`, one run at a time, without keeping the process alive; a failure
 * goes to `onError` and the next run still comes. The returned function stops it, once a run in
 * progress has ended.
 */
export function runPeriodically(
  task: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: Error) => void,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(task)
      .catch((error: unknown) => onError(error instanceof Error ? error : new Error(String(error))));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
