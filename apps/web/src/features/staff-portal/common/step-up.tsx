import { type ReactNode, useState } from 'react';
import { useFocusWhen } from '../../../lib/forms/use-checked-form.ts';
import { FactorsView } from './factors-view.tsx';
import { isStepUpRequired } from './second-factor-errors.ts';
import { secondFactorMessages } from './second-factor-messages.ts';
import { SecondStepForm } from './second-step-form.tsx';
import type { StaffScope } from './staff-scope.ts';
import { useFactors } from './use-factors.ts';

/** A call run through `withStepUp`: its value, or nothing when the person canceled the step-up. */
export type StepUpOutcome<T> = { done: true; value: T } | { done: false };

/**
 * The step-up prompt in place of what asked for it: the server wants a second factor used in the
 * last few minutes before it changes factors or launches a portal. The heading takes the focus so
 * a screen reader says why the page changed.
 */
function StepUpPrompt({
  scope,
  onConfirmed,
  onCancel,
}: {
  scope: StaffScope;
  onConfirmed: () => void;
  onCancel: () => void;
}) {
  const { state, reload } = useFactors(scope, true);
  const headingRef = useFocusWhen<HTMLHeadingElement>(true);

  return (
    <section className="step-up" aria-labelledby="step-up-title">
      <h2 id="step-up-title" className="section-title" tabIndex={-1} ref={headingRef}>
        Confirm it is you
      </h2>
      <p>{secondFactorMessages.stepUpRequired}</p>
      <FactorsView state={state} reload={reload}>
        {(factors) => (
          <SecondStepForm
            scope={scope}
            factors={factors}
            onConfirmed={onConfirmed}
            submitLabel="Confirm"
            focusOnShow={false}
          />
        )}
      </FactorsView>
      <div className="portal-actions">
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/**
 * Runs calls that may need a step-up: when the server answers `stepUpRequired`, `prompt` shows
 * the step-up, and once the person has confirmed a second factor the call runs once more. The
 * caller shows `prompt` (null while none is asked for) in place of the part of the page it blocks.
 */
export function useStepUp(scope: StaffScope): {
  withStepUp<T>(action: () => Promise<T>): Promise<StepUpOutcome<T>>;
  prompt: ReactNode;
} {
  const [asking, setAsking] = useState<{ settle: (confirmed: boolean) => void } | null>(null);

  async function withStepUp<T>(action: () => Promise<T>): Promise<StepUpOutcome<T>> {
    try {
      return { done: true, value: await action() };
    } catch (error) {
      if (!isStepUpRequired(error)) throw error;
    }
    const confirmed = await new Promise<boolean>((settle) => setAsking({ settle }));
    setAsking(null);
    if (!confirmed) return { done: false };
    return { done: true, value: await action() };
  }

  const prompt =
    asking === null ? null : (
      <StepUpPrompt
        scope={scope}
        onConfirmed={() => asking.settle(true)}
        onCancel={() => asking.settle(false)}
      />
    );
  return { withStepUp, prompt };
}
