import { type ReactNode, useEffect } from 'react';
import { useTexts } from '../i18n/language.ts';
import { layoutTexts } from './auth-layout/layout-texts.ts';
import { FormAlert } from './form-field.tsx';

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
  const texts = useTexts('layout', layoutTexts);
  useEffect(() => {
    window.addEventListener('online', onRetry);
    return () => window.removeEventListener('online', onRetry);
  }, [onRetry]);
  return (
    <div className="unreachable">
      <FormAlert>
        {children}
        <p>{texts.unreachable}</p>
      </FormAlert>
      <button
        type="button"
        className="button button--block"
        disabled={retrying}
        aria-busy={retrying}
        onClick={onRetry}
      >
        {texts.tryAgain}
      </button>
    </div>
  );
}
