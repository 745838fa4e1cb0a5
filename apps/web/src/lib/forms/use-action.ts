import { useState } from 'react';

/** Words a refused call for the person, beside the form or button that made it. */
export type RefusalOf = (error: unknown) => string;

/** Sets, or with null clears, the refusal a form or button shows. */
type SetRefusal = (message: string | null) => void;

/**
 * A call a button starts rather than a form's submission: busy while it runs, the previous
 * refusal cleared as it starts and a new one set in `refusalOf`'s words when it is refused. A
 * button that belongs to a form shows the form's refusal: pass the form's `setRefusal` (the
 * action's own `refusal` then stays null). A call that words its own refusals (the verification
 * form's lookup, which may also lock or expire the link) passes no `refusalOf`.
 */
export function useAction(setFormRefusal?: SetRefusal) {
  const [busy, setBusy] = useState(false);
  const [refusal, setOwnRefusal] = useState<string | null>(null);
  const setRefusal = setFormRefusal ?? setOwnRefusal;

  async function run(action: () => Promise<void>, refusalOf?: RefusalOf) {
    setRefusal(null);
    setBusy(true);
    try {
      await action();
    } catch (error) {
      if (refusalOf === undefined) throw error;
      setRefusal(refusalOf(error));
    } finally {
      setBusy(false);
    }
  }

  return { busy, refusal, setRefusal, run };
}
