import { FormField } from '../../../components/form-field.tsx';
import type { FieldCheck } from '../../../lib/forms/use-checked-form.ts';
import { passwordAdvice } from '../../../lib/session/sign-in-errors.ts';

type NewPasswordName = 'newPassword' | 'confirmPassword';

/** The checks of the two fields, for a form whose other fields are `Other`. */
export function newPasswordChecks<Other extends string = never>(): Record<
  NewPasswordName,
  FieldCheck<NewPasswordName | Other>
> {
  return {
    newPassword: (value) => (value.length < passwordAdvice.minimumLength ? passwordAdvice.tooShort : null),
    confirmPassword: (value, values) => (value === values.newPassword ? null : passwordAdvice.mismatch),
  };
}

/** What makes a strong password, said before the person chooses one rather than after a refusal. */
function PasswordAdvice() {
  return (
    <>
      <span>{passwordAdvice.rule}</span> <span>{passwordAdvice.avoid}</span>
    </>
  );
}

/** The new password twice; the length is checked here, how guessable it is by the server. */
export function NewPasswordFields({ errors }: { errors: Partial<Record<NewPasswordName, string>> }) {
  return (
    <>
      <FormField
        label="New password"
        type="password"
        autoComplete="new-password"
        hint={<PasswordAdvice />}
        name="newPassword"
        error={errors.newPassword}
      />
      <FormField
        label="Confirm the new password"
        type="password"
        autoComplete="new-password"
        name="confirmPassword"
        error={errors.confirmPassword}
      />
    </>
  );
}

/**
 * The refusal of a weak password: what was wrong, in one line. The advice stays beside the field
 * and is not repeated here, so the Save button stays in view on a phone.
 */
export function WeakPasswordAlert() {
  return (
    <p>
      {passwordAdvice.weak} {passwordAdvice.weakTip}
    </p>
  );
}
