import type { EnrolmentResult, TotpEnrolment } from '@entry/domain';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { digitsCheck, useCheckedForm, useFocusWhen } from '../../../lib/forms/use-checked-form.ts';
import { secondFactorRefusal } from '../common/second-factor-errors.ts';
import { secondFactorMessages } from '../common/second-factor-messages.ts';
import type { StepUpOutcome } from '../common/step-up.tsx';

const codeChecks = {
  code: digitsCheck<'code'>(6, {
    required: secondFactorMessages.enterTotpCode,
    invalid: secondFactorMessages.totpCodeDigits,
  }),
};

/** The secret in groups of four, as authenticator apps show and accept it. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/**
 * An authenticator app to add: the QR code and the secret for the app, then the app's first code
 * confirms it. The first field takes the focus once the QR code is shown.
 */
export function TotpSetup({
  enrolment,
  confirm,
  onConfirmed,
  onCancel,
}: {
  enrolment: TotpEnrolment;
  /** Sends the code (through a step-up when the server asks for one). */
  confirm: (code: string) => Promise<StepUpOutcome<EnrolmentResult>>;
  onConfirmed: (result: EnrolmentResult) => void;
  onCancel: () => void;
}) {
  const form = useCheckedForm(codeChecks);
  const fieldRef = useFocusWhen<HTMLInputElement>(true);

  const onSubmit = form.onSubmitWith(
    async ({ code }) => {
      const outcome = await confirm(code.trim());
      if (outcome.done) onConfirmed(outcome.value);
    },
    (error) => secondFactorRefusal(error, 'totp'),
  );

  return (
    <div className="totp-setup">
      <ol className="steps">
        <li>Open your authenticator app and add an account.</li>
        <li>Scan this QR code, or enter the key below by hand.</li>
        <li>Enter the 6-digit code the app then shows.</li>
      </ol>
      <img
        className="totp-setup__qr"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(enrolment.qrCodeSvg)}`}
        alt="QR code to add this account to an authenticator app"
        width={200}
        height={200}
      />
      <p>
        Key for entering by hand:{' '}
        <code className="totp-setup__secret" data-testid="totp-secret">
          {grouped(enrolment.secret)}
        </code>
      </p>
      <form noValidate onSubmit={onSubmit} onChange={form.onChange}>
        {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
        <FormField
          label="Code from the app"
          className="field__input code-input"
          type="text"
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          name="code"
          inputRef={fieldRef}
          error={form.errors.code}
        />
        <div className="portal-actions">
          <button className="button" type="submit" disabled={form.submitting} aria-busy={form.submitting}>
            Confirm the app
          </button>
          <button type="button" className="button button--secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </div>
  );
}
