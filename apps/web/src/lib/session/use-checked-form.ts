import { validators } from '@entry/domain';
import { type FormEvent, type RefCallback, useCallback, useState } from 'react';
import { type RefusalOf, useAction } from './use-action.ts';

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
 * section 5); the first field in error takes the focus. A refused submission's message, in
 * `refusalOf`'s words, is the form's `refusal` until the next submission; a button of the form
 * shows its own there through `useAction(form.setRefusal)`. The consumer pages use it instead of
 * react-hook-form, which would be the verification page's largest script (docs/rules.md#budgets).
 */
export function useCheckedForm<Name extends string>(checks: Record<Name, FieldCheck<Name>>) {
  const names = Object.keys(checks) as Name[];
  const [errors, setErrors] = useState<Partial<Record<Name, string>>>({});
  const [submitted, setSubmitted] = useState(false);
  const submission = useAction();

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

  function onSubmitWith(send: (values: Record<Name, string>) => Promise<void>, refusalOf?: RefusalOf) {
    return async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const form = event.currentTarget;
      // Every submission starts without the previous refusal, so an old one never stays beside new errors.
      submission.setRefusal(null);
      const { values, found } = read(form);
      setSubmitted(true);
      setErrors(found);
      const firstInvalid = names.find((name) => found[name] !== undefined);
      if (firstInvalid !== undefined) {
        controlOf(form, firstInvalid)?.focus();
        return;
      }
      await submission.run(() => send(values), refusalOf);
    };
  }

  return {
    errors,
    submitting: submission.busy,
    refusal: submission.refusal,
    setRefusal: submission.setRefusal,
    onChange,
    onSubmitWith,
  };
}

/**
 * A ref that focuses its element when the element appears while `when` holds, or when `when`
 * turns true while it is shown: the field of a form that has just opened, the safe answer of a
 * question, or the button back in place once what it opened has closed. It lives with the form
 * hook because a module of its own would be a chunk of its own, whose name alone grows the entry.
 */
export function useFocusWhen<T extends HTMLElement>(when: boolean): RefCallback<T> {
  return useCallback(
    (element: T | null) => {
      if (when) element?.focus();
    },
    [when],
  );
}
