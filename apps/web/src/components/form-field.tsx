import { type InputHTMLAttributes, type ReactNode, useId } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';

export interface FormFieldProps
  extends Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'onChange' | 'onBlur' | 'ref'> {
  label: string;
  /** react-hook-form's registration, or only the name for a form that reads its fields on submission. */
  registration: UseFormRegisterReturn | { name: string };
  /** The message to show now; the form decides when (after submission on sign-in forms). */
  error?: string | undefined;
  hint?: ReactNode;
}

/** A labelled input, its hint and its announced error. */
export function FormField({ label, registration, error, hint, ...inputProps }: FormFieldProps) {
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
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
          {...registration}
        />
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
