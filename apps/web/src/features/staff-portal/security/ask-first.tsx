import { useState } from 'react';
import { useFocusWhen } from '../../../lib/forms/use-checked-form.ts';
import { Confirm } from '../common/confirm.tsx';

/**
 * A button whose change waits for a yes to its question; the button has the focus back once the
 * question is answered. `onConfirm` is an action's run (`busy` is that action's): it shows its own refusal.
 */
export function AskFirst({
  label,
  question,
  confirmLabel,
  busy,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [asked, setAsked] = useState(false);
  const openRef = useFocusWhen<HTMLButtonElement>(asked);

  async function confirm() {
    await onConfirm();
    setAsking(false);
  }

  if (asking) {
    return (
      <Confirm
        question={question}
        confirmLabel={confirmLabel}
        busy={busy}
        onConfirm={confirm}
        onCancel={() => setAsking(false)}
      />
    );
  }
  return (
    <div className="portal-actions">
      <button
        ref={openRef}
        type="button"
        className="button button--secondary"
        onClick={() => {
          setAsking(true);
          setAsked(true);
        }}
      >
        {label}
      </button>
    </div>
  );
}
