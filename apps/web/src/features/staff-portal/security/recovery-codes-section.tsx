import { FormAlert } from '../../../components/form-field.tsx';
import { useAction } from '../../../lib/forms/use-action.ts';
import { secondFactorRefusal } from '../common/second-factor-errors.ts';
import { AskFirst } from './ask-first.tsx';
import type { SectionProps } from './section-props.ts';

/** How many recovery codes are left, and a new set (the old one stops working) after a question. */
export function RecoveryCodesSection({
  factors,
  secondFactors,
  withStepUp,
  onCodes,
}: Pick<SectionProps, 'factors' | 'secondFactors' | 'withStepUp'> & { onCodes(codes: string[]): void }) {
  const regenerating = useAction();
  const left = factors.recoveryCodesLeft;

  const regenerate = () =>
    regenerating.run(async () => {
      const outcome = await withStepUp(() =>
        secondFactors.regenerateRecoveryCodes({ explainedByPage: true }),
      );
      if (outcome.done) onCodes(outcome.value.recoveryCodes);
    }, secondFactorRefusal);

  return (
    <section className="factor-section" aria-labelledby="recovery-title">
      <h2 id="recovery-title" className="section-title">
        Recovery codes
      </h2>
      {regenerating.refusal !== null && <FormAlert>{regenerating.refusal}</FormAlert>}
      <p data-testid="recovery-codes-left">
        {left === 1 ? '1 recovery code is left.' : `${left} recovery codes are left.`}
        {left <= 3 ? ' Get new ones before you run out.' : ''}
      </p>
      <AskFirst
        label="Get new recovery codes"
        question="Get new recovery codes? The codes you have now will stop working."
        confirmLabel="Get new codes"
        busy={regenerating.busy}
        onConfirm={regenerate}
      />
    </section>
  );
}
