import type { SecondFactorsResult } from '@entry/client';
import { useId, useState } from 'react';
import { Link } from 'react-router';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { useAction } from '../../../lib/forms/use-action.ts';
import {
  digitsCheck,
  type FieldCheck,
  useCheckedForm,
  useFocusWhen,
} from '../../../lib/forms/use-checked-form.ts';
import { browserHasPasskeys } from './passkey-ceremony.ts';
import { signInWithPasskey } from './passkey-sign-in.ts';
import { secondFactorRefusal } from './second-factor-errors.ts';
import { methodNames, type SecondFactorMethod, secondFactorMessages } from './second-factor-messages.ts';
import { type StaffScope, staffPaths, useSecondFactors } from './staff-scope.ts';

/** The ways this user can confirm it is them here, the strongest first: the page starts with the first. */
function methodsOf(factors: SecondFactorsResult): SecondFactorMethod[] {
  const methods: SecondFactorMethod[] = [];
  if (factors.passkeys.length > 0 && browserHasPasskeys()) methods.push('passkey');
  if (factors.totp.enrolled) methods.push('totp');
  if (factors.recoveryCodesLeft > 0) methods.push('recovery');
  return methods;
}

const hasNoFactor = (factors: SecondFactorsResult): boolean =>
  !factors.totp.enrolled && factors.passkeys.length === 0 && factors.recoveryCodesLeft === 0;

/** What a person who has never set up a second factor can do when a change asks for one. */
function NoFactorToConfirm({ scope, policy }: { scope: StaffScope; policy: SecondFactorsResult['policy'] }) {
  if (policy === 'off') return <FormAlert>{secondFactorMessages.stepUpFactorsOff}</FormAlert>;
  return (
    <FormAlert>
      {secondFactorMessages.stepUpWithoutFactor}{' '}
      <Link to={staffPaths(scope).security.href()}>Open the security page</Link>
    </FormAlert>
  );
}

const codeChecks: Record<'totp' | 'recovery', FieldCheck<'code'>> = {
  totp: digitsCheck<'code'>(6, {
    required: secondFactorMessages.enterTotpCode,
    invalid: secondFactorMessages.totpCodeDigits,
  }),
  recovery: (value) => (value.trim() === '' ? secondFactorMessages.enterRecoveryCode : null),
};

const methodHints: Record<SecondFactorMethod, string> = {
  passkey: 'Use the passkey saved on this device, in your password manager or on your phone.',
  totp: 'Open your authenticator app and enter the 6-digit code it shows for this account.',
  recovery: 'Enter one of the recovery codes you saved, such as abcde-12345. Each code works once.',
};

/** An authenticator or recovery code, checked on submission; the field takes the focus when asked. */
function CodeForm({
  scope,
  method,
  focusOnShow,
  onConfirmed,
  submitLabel,
}: {
  scope: StaffScope;
  method: 'totp' | 'recovery';
  focusOnShow: boolean;
  onConfirmed: () => void;
  submitLabel: string;
}) {
  const secondFactors = useSecondFactors(scope);
  const form = useCheckedForm({ code: codeChecks[method] });
  const fieldRef = useFocusWhen<HTMLInputElement>(focusOnShow);

  const onSubmit = form.onSubmitWith(
    async ({ code }) => {
      await secondFactors.signIn({ method, code: code.trim() });
      onConfirmed();
    },
    (error) => secondFactorRefusal(error, method),
  );

  return (
    <form noValidate onSubmit={onSubmit} onChange={form.onChange}>
      {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
      <FormField
        label={method === 'totp' ? 'Authenticator code' : 'Recovery code'}
        hint={methodHints[method]}
        className={method === 'totp' ? 'field__input code-input' : 'field__input'}
        type="text"
        inputMode={method === 'totp' ? 'numeric' : 'text'}
        autoComplete={method === 'totp' ? 'one-time-code' : 'off'}
        autoCapitalize="none"
        spellCheck={false}
        maxLength={method === 'totp' ? 6 : 64}
        name="code"
        inputRef={fieldRef}
        error={form.errors.code}
      />
      <button
        className="button button--block"
        type="submit"
        disabled={form.submitting}
        aria-busy={form.submitting}
      >
        {submitLabel}
      </button>
    </form>
  );
}

/** The passkey of this user (the server's challenge lists theirs), through the browser's own prompt. */
function PasskeyStep({
  scope,
  focusOnShow,
  onConfirmed,
}: {
  scope: StaffScope;
  focusOnShow: boolean;
  onConfirmed: () => void;
}) {
  const secondFactors = useSecondFactors(scope);
  const confirming = useAction();
  const buttonRef = useFocusWhen<HTMLButtonElement>(focusOnShow);

  const confirm = () =>
    confirming.run(
      async () => {
        await signInWithPasskey(secondFactors, false);
        onConfirmed();
      },
      (error) => secondFactorRefusal(error, 'passkey'),
    );

  return (
    <div>
      {confirming.refusal !== null && <FormAlert>{confirming.refusal}</FormAlert>}
      <p className="muted">{methodHints.passkey}</p>
      <button
        ref={buttonRef}
        type="button"
        className="button button--block"
        disabled={confirming.busy}
        aria-busy={confirming.busy}
        onClick={confirm}
      >
        Use your passkey
      </button>
    </div>
  );
}

/**
 * The second step after a password, or a step-up of a full session: a choice of the user's
 * methods (when there is more than one), then that method's form. The same calls serve both; the
 * server tells them apart by the session's token.
 */
export function SecondStepForm({
  scope,
  factors,
  onConfirmed,
  submitLabel = 'Continue',
  focusOnShow = true,
}: {
  scope: StaffScope;
  factors: SecondFactorsResult;
  onConfirmed: () => void;
  submitLabel?: string;
  focusOnShow?: boolean;
}) {
  const methods = methodsOf(factors);
  const [chosen, setChosen] = useState<SecondFactorMethod | undefined>(methods[0]);
  // The first form takes the focus; a later choice leaves it on the choice, where the person is.
  const [choiceMade, setChoiceMade] = useState(false);
  const groupName = useId();

  if (chosen === undefined) {
    if (hasNoFactor(factors)) return <NoFactorToConfirm scope={scope} policy={factors.policy} />;
    return (
      <FormAlert>
        There is no way left to confirm it is you on this device. Ask an administrator to reset your second
        factors, then sign in again to set one up.
      </FormAlert>
    );
  }

  return (
    <>
      {methods.length > 1 && (
        <fieldset className="method-choice">
          <legend>Confirm with</legend>
          {methods.map((method) => (
            <label key={method} className="method-choice__option">
              <input
                type="radio"
                name={groupName}
                value={method}
                checked={chosen === method}
                onChange={() => {
                  setChosen(method);
                  setChoiceMade(true);
                }}
              />
              {methodNames[method]}
            </label>
          ))}
        </fieldset>
      )}
      {chosen === 'passkey' ? (
        <PasskeyStep scope={scope} focusOnShow={focusOnShow && !choiceMade} onConfirmed={onConfirmed} />
      ) : (
        <CodeForm
          key={chosen}
          scope={scope}
          method={chosen}
          focusOnShow={focusOnShow && !choiceMade}
          onConfirmed={onConfirmed}
          submitLabel={submitLabel}
        />
      )}
    </>
  );
}
