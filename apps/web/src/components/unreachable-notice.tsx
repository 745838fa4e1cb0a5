import { type ReactNode, useEffect } from 'react';
import { FormAlert } from './form-field.tsx';

/** Our own words for a server that cannot be reached; the spec has none. */
export const unreachableMessages = {
  notice:
    'We cannot reach the server right now. Check your internet connection, then try again. We will also try again as soon as your device is back online.',
  retry: 'Try again',
} as const;

/**
 * The server could not be reached: says so, offers to try again, and tries again by itself when
 * the browser comes back online, so a person on a weak connection is never left on a blank page.
 */
export function UnreachableNotice({
  onRetry,
  retrying = false,
  children,
}: {
  onRetry: () => void;
  retrying?: boolean;
  /** What could not be done, said before the general notice. */
  children?: ReactNode;
}) {
  useEffect(() => {
    window.addEventListener('online', onRetry);
    return () => window.removeEventListener('online', onRetry);
  }, [onRetry]);
  return (
    <div className="unreachable">
      <FormAlert>
        {children}
        <p>{unreachableMessages.notice}</p>
      </FormAlert>
      <button
        type="button"
        className="button button--block"
        disabled={retrying}
        aria-busy={retrying}
        onClick={onRetry}
      >
        {unreachableMessages.retry}
      </button>
    </div>
  );
}
