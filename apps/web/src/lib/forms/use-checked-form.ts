import { validators } from '@entry/domain';
import { type FocusEvent, type FormEvent, type RefCallback, useCallback, useState } from 'react';
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
 * When a field shows its error: after the form's submission (sign-in forms, docs/rules.md#forms), or
 * also once the person has left it (every other form).
 */
export type ErrorsShown = 'after-submission' | 'after-leaving';

/**
 * Uncontrolled fields checked on submission, then on every change; with `after-leaving`, a field is
 * also checked when the person leaves it. The first field in error takes the focus on submission. A
 * refused submission's message, in `refusalOf`'s words, is the form's `refusal` until the next
 * submission; a button of the form shows its own there through `useAction(form.setRefusal)`. Every
 * form uses it: a form library would be the verification page's largest script.
 */
export function useCheckedForm<Name extends string>(
  checks: Record<Name, FieldCheck<Name>>,
  shown: ErrorsShown = 'after-submission',
) {
  const names = Object.keys(checks) as Name[];
  const [found, setFound] = useState<Partial<Record<Name, string>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [left, setLeft] = useState<ReadonlySet<string>>(new Set());
  const submission = useAction();

  function read(form: HTMLFormElement) {
    const values = Object.fromEntries(
      names.map((name) => [name, controlOf(form, name)?.value ?? '']),
    ) as Record<Name, string>;
    const problems: Partial<Record<Name, string>> = {};
    for (const name of names) {
      const message = checks[name](values[name], values);
      if (message !== null) problems[name] = message;
    }
    return { values, problems };
  }

  const errors = Object.fromEntries(
    names.filter((name) => submitted || left.has(name)).map((name) => [name, found[name]]),
  ) as Partial<Record<Name, string>>;

  function onChange(event: FormEvent<HTMLFormElement>) {
    if (submitted || left.size > 0) setFound(read(event.currentTarget).problems);
  }

  function onBlur(event: FocusEvent<HTMLFormElement>) {
    const name = isFormControl(event.target) ? event.target.name : '';
    if (shown !== 'after-leaving' || !names.includes(name as Name) || left.has(name)) return;
    setLeft(new Set([...left, name]));
    setFound(read(event.currentTarget).problems);
  }

  function onSubmitWith(send: (values: Record<Name, string>) => Promise<void>, refusalOf?: RefusalOf) {
    return async (event: FormEvent<HTMLFormElement>) => {
      event.preventDefault();
      const form = event.currentTarget;
      // Every submission starts without the previous refusal, so an old one never stays beside new errors.
      submission.setRefusal(null);
      const { values, problems } = read(form);
      setSubmitted(true);
      setFound(problems);
      const firstInvalid = names.find((name) => problems[name] !== undefined);
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
    onBlur,
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
