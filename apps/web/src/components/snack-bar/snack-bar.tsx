import { useEffect, useState } from 'react';
import { type Notification, subscribeToNotifications } from '../../lib/notifications.ts';

const activityEvents = ['pointerdown', 'keydown'] as const;

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
    const next = () => setQueue((q) => q.slice(1));
    if (current.durationMs === 'untilActivity') {
      for (const event of activityEvents) window.addEventListener(event, next, { once: true });
      return () => {
        for (const event of activityEvents) window.removeEventListener(event, next);
      };
    }
    const timer = window.setTimeout(next, current.durationMs);
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
