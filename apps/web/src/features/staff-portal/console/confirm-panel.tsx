import { useFocusWhen } from '../../../lib/forms/use-checked-form.ts';

/** Asks before a change that cannot simply be undone; its question takes the focus so it is read out. */
export function ConfirmPanel({
  question,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const questionRef = useFocusWhen<HTMLHeadingElement>(true);
  return (
    <section className="console-panel" role="alertdialog" aria-labelledby="confirm-question">
      <h2 id="confirm-question" className="section-title" tabIndex={-1} ref={questionRef}>
        {question}
      </h2>
      <div className="portal-actions">
        <button type="button" className="button" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
