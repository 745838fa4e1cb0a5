import { snackBar } from '@entry/domain';

export interface Notification {
  id: number;
  text: string;
  /** How long it shows; `untilActivity`: until the person next presses a key or the pointer. */
  durationMs: number | 'untilActivity';
}

type Listener = (notification: Notification) => void;

const listeners = new Set<Listener>();
let nextId = 1;

/**
 * Shows a message in the snack-bar. Plain functions rather than React state, so the API client's
 * hooks can call it from outside any component.
 */
export function notify(text: string, durationMs: Notification['durationMs'] = snackBar.durationMs): void {
  const notification = { id: nextId++, text, durationMs };
  for (const listener of listeners) listener(notification);
}

export function subscribeToNotifications(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
