import { validators } from '@entry/domain';
import { type FormEvent, useState } from 'react';

/** A field's check: its message, or null when the value is acceptable. */
export type FieldCheck<Name extends string> = (value: string, values: Record<Name, string>) => string | null;

/** A field of exactly `length` digits (spaces around them allowed). */
export function digitsCheck<Name extends string>(
  length: number,
  messages: { required: string; invalid: string },
): FieldCheck<Name> {
  return (value) => {
    const text = value.trim();
    if (text === '') return messages.required;
    return validators.onlyNumeric(text) === null && validators.exactLength(length)(text) === null
      ? null
      : messages.invalid;
  };
}

type FormControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

function isFormControl(element: unknown): element is FormControl {
  return (
    element instanceof HTMLInputElement ||
    element instanceof HTMLSelectElement ||
    element instanceof HTMLTextAreaElement
  );
}

function controlOf(form: HTMLFormElement, name: string): FormControl | null {
  const element = form.elements.namedItem(name);
  return isFormControl(element) ? element : null;
}

/**
 * Uncontrolled fields checked on submission, then on every change (the stricter display of spec
 * section 5); the first field in error takes the focus. The consumer pages use it instead of
 * react-hook-form, which would be the verification page's largest script (DESIGN.md section 8).
 */
export function useCheckedForm<Name extends string>(checks: Record<Name, FieldCheck<Name>>) {
  const names = Object.keys(checks) as Name[];
  const [errors, setErrors] = useState<Partial<Record<Name, string>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [submitting, setSubmitting] = useState(false);

  function read(form: HTMLFormElement) {
    const values = Object.fromEntries(
      names.map((name) => [name, controlOf(form, name)?.value ?? '']),
    ) as Record<Name, string>;
    const found: Partial<Record<Name, string>> = {};
    for (const name of names) {
      const message = checks[name](values[name], values);
      if (message !== null) found[name] = message;
    }
    return { values, found };
  }

  function onChange(event: FormEvent<HTMLFormElement>) {
    if (submitted) setErrors(read(event.currentTarget).found);
  }

  function onSubmitWith(send: (values: Record<Name, string>) => Promise<void>) {
    return async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const form = event.currentTarget;
      const { values, found } = read(form);
      setSubmitted(true);
      setErrors(found);
      const firstInvalid = names.find((name) => found[name] !== undefined);
      if (firstInvalid !== undefined) {
        controlOf(form, firstInvalid)?.focus();
        return;
      }
      setSubmitting(true);
      try {
        await send(values);
      } finally {
        setSubmitting(false);
      }
    };
  }

  return { errors, submitting, onChange, onSubmitWith };
}
