import type { UseFormRegister } from 'react-hook-form';
import { FormField } from '../../components/form-field.tsx';
import { passwordAdvice } from '../../lib/session/sign-in-errors.ts';

export interface NewPasswordValues {
  newPassword: string;
  confirmPassword: string;
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
export function NewPasswordFields<Values extends NewPasswordValues>({
  register,
  shownError,
}: {
  register: UseFormRegister<Values>;
  /** The message a field shows now: once it is touched or the form submitted (DESIGN.md section 6). */
  shownError: (name: keyof NewPasswordValues) => string | undefined;
}) {
  // The generic form's register accepts these two names, which every such form has.
  const registerField = register as unknown as UseFormRegister<NewPasswordValues>;
  return (
    <>
      <FormField
        label="New password"
        type="password"
        autoComplete="new-password"
        hint={<PasswordAdvice />}
        registration={registerField('newPassword', {
          required: passwordAdvice.tooShort,
          minLength: { value: passwordAdvice.minimumLength, message: passwordAdvice.tooShort },
        })}
        error={shownError('newPassword')}
      />
      <FormField
        label="Confirm the new password"
        type="password"
        autoComplete="new-password"
        registration={registerField('confirmPassword', {
          validate: (value, values) => value === values.newPassword || passwordAdvice.mismatch,
        })}
        error={shownError('confirmPassword')}
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
