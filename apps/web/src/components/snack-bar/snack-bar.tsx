import { useEffect, useState } from 'react';
import { type Notification, subscribeToNotifications } from '../../lib/notifications.ts';

/**
 * Shows the messages of `notify()` one at a time at the top of the page, each for its duration.
 * The live region stays in the page, so screen readers announce every message put into it.
 */
export function SnackBar() {
  const [queue, setQueue] = useState<readonly Notification[]>([]);
  const current = queue[0];

  useEffect(() => subscribeToNotifications((notification) => setQueue((q) => [...q, notification])), []);

  useEffect(() => {
    if (current === undefined) return;
    const timer = window.setTimeout(() => setQueue((q) => q.slice(1)), current.durationMs);
    return () => window.clearTimeout(timer);
  }, [current]);

  return (
    <div className="snack-bar-region" role="status" aria-live="polite" aria-atomic="true">
      {current !== undefined && (
        <div key={current.id} className="snack-bar">
          <span className="snack-bar__text">{current.text}</span>
        </div>
      )}
    </div>
  );
}
