import { useId } from 'react';
import { useFocusWhen } from '../../../lib/forms/use-checked-form.ts';

/**
 * A question before a change that cannot be undone, as an alert dialog named by the question; the
 * safe answer takes the focus, and both answers read the question out.
 */
export function Confirm({
  question,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
}: {
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const keepRef = useFocusWhen<HTMLButtonElement>(true);
  const questionId = useId();
  return (
    <div className="confirm" role="alertdialog" aria-labelledby={questionId}>
      <p id={questionId}>{question}</p>
      <div className="portal-actions">
        <button
          type="button"
          className="button"
          disabled={busy}
          aria-busy={busy}
          aria-describedby={questionId}
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
        <button
          ref={keepRef}
          type="button"
          className="button button--secondary"
          aria-describedby={questionId}
          onClick={onCancel}
        >
          Cancel
        </button>
      </div>
    </div>
  );
}
