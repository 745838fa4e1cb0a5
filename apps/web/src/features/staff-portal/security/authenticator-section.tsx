import type { TotpEnrolment } from '@entry/domain';
import { useState } from 'react';
import { FormAlert } from '../../../components/form-field.tsx';
import { useAction } from '../../../lib/forms/use-action.ts';
import { useFocusWhen } from '../../../lib/forms/use-checked-form.ts';
import { secondFactorRefusal } from '../common/second-factor-errors.ts';
import { AskFirst } from './ask-first.tsx';
import type { SectionProps } from './section-props.ts';
import { TotpSetup } from './totp-setup.tsx';

const totpRefusal = (error: unknown) => secondFactorRefusal(error, 'totp');

/** The authenticator app: set up with a QR code and a first code, or removed after a question. */
export function AuthenticatorSection({
  factors,
  secondFactors,
  canAdd,
  withStepUp,
  onAdded,
  onChanged,
}: SectionProps) {
  // 'canceled' after a set-up was canceled: the start button is back, and has the focus back.
  const [enrolment, setEnrolment] = useState<TotpEnrolment | 'canceled' | null>(null);
  const changing = useAction();
  const startRef = useFocusWhen<HTMLButtonElement>(enrolment === 'canceled');

  const start = () =>
    changing.run(async () => {
      const outcome = await withStepUp(() => secondFactors.addTotp({ explainedByPage: true }));
      if (outcome.done) setEnrolment(outcome.value);
    }, totpRefusal);

  const remove = () =>
    changing.run(async () => {
      const outcome = await withStepUp(() => secondFactors.removeTotp({ explainedByPage: true }));
      if (outcome.done) onChanged('The authenticator app is removed.');
    }, totpRefusal);

  return (
    <section className="factor-section" aria-labelledby="authenticator-title">
      <h2 id="authenticator-title" className="section-title">
        Authenticator app
      </h2>
      {changing.refusal !== null && <FormAlert>{changing.refusal}</FormAlert>}
      {factors.totp.enrolled ? (
        <>
          <p>An authenticator app is set up: it shows a new 6-digit code every 30 seconds.</p>
          <AskFirst
            label="Remove the authenticator app"
            question="Remove the authenticator app? Its codes will no longer work."
            confirmLabel="Remove the app"
            busy={changing.busy}
            onConfirm={remove}
          />
        </>
      ) : enrolment !== null && enrolment !== 'canceled' ? (
        <TotpSetup
          enrolment={enrolment}
          confirm={(code) => withStepUp(() => secondFactors.confirmTotp({ code }, { explainedByPage: true }))}
          onConfirmed={(result) => {
            setEnrolment(null);
            onAdded(result, 'The authenticator app is set up.');
          }}
          onCancel={() => setEnrolment('canceled')}
        />
      ) : (
        <>
          <p>
            An app such as Google Authenticator, Microsoft Authenticator or 1Password shows a code to type in.
          </p>
          {canAdd && (
            <div className="portal-actions">
              <button
                ref={startRef}
                type="button"
                className="button"
                disabled={changing.busy}
                aria-busy={changing.busy}
                onClick={start}
              >
                Set up an authenticator app
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}
