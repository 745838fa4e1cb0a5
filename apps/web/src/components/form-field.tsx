import { type InputHTMLAttributes, type ReactNode, type Ref, useId, useState } from 'react';

export interface FormFieldProps
  extends Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'onChange' | 'onBlur' | 'ref'> {
  label: string;
  /** The name its form reads the field by. */
  name: string;
  /** To focus the field. */
  inputRef?: Ref<HTMLInputElement>;
  /** The message to show now; the form decides when (after submission on sign-in forms). */
  error?: string | undefined;
  hint?: ReactNode;
}

/** A password (a password input with a password autocomplete), which a person may show to check what they typed. */
function isRevealablePassword(inputProps: InputHTMLAttributes<HTMLInputElement>): boolean {
  return inputProps.type === 'password' && (inputProps.autoComplete ?? '').endsWith('password');
}

/** A labelled input, its hint and its announced error; a password's with a Show button. */
export function FormField({ label, name, inputRef, error, hint, ...inputProps }: FormFieldProps) {
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const [revealed, setRevealed] = useState(false);
  const revealable = isRevealablePassword(inputProps);
  const describedBy = [hint === undefined ? '' : hintId, error === undefined ? '' : errorId]
    .filter(Boolean)
    .join(' ');
  return (
    <div className="field">
      <label className="field__label" htmlFor={inputId}>
        {label}
      </label>
      {hint !== undefined && (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      )}
      <div className={error === undefined ? 'field__control' : 'field__control field__control--invalid'}>
        <input
          id={inputId}
          className="field__input"
          aria-invalid={error !== undefined}
          aria-describedby={describedBy === '' ? undefined : describedBy}
          {...inputProps}
          {...(revealable && revealed ? { type: 'text' } : {})}
          name={name}
          ref={inputRef}
        />
        {revealable && (
          <button
            type="button"
            className="field__reveal"
            aria-controls={inputId}
            aria-label={revealed ? 'Hide password' : 'Show password'}
            onClick={() => setRevealed((shown) => !shown)}
          >
            {revealed ? 'Hide' : 'Show'}
          </button>
        )}
      </div>
      {error !== undefined && (
        <p className="field__error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

/** A message about the whole form (a refused sign-in, a lost connection), announced when it appears. */
export function FormAlert({ children }: { children: ReactNode }) {
  return (
    <div className="notice notice--error form-alert" role="alert">
      {children}
    </div>
  );
}
