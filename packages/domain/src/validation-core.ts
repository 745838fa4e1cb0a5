/**
 * The building blocks every validator shares, in a module of their own so the entry page's one
 * field (subdomain-field.ts) does not pull in every validator and the states list.
 */
/** A form value: form controls give strings; numbers work too. */
export type FieldValue = string | number | null | undefined;

export interface ValidationError {
  key: string;
  message: string;
}

/** Returns null when the value passes. Every shared validator passes null, undefined and ''. */
export type Validator<Value = FieldValue> = (value: Value) => ValidationError | null;

export function isEmpty(value: unknown): value is null | undefined | '' {
  return value === null || value === undefined || value === '';
}

export function fail(key: string, message: string): ValidationError {
  return { key, message };
}

/** A validator that fails with `key`/`message` when a non-empty value does not satisfy `test`. */
export function rule(key: string, message: string, test: (text: string) => boolean): Validator {
  return (value) => (isEmpty(value) || test(String(value)) ? null : fail(key, message));
}

export function matches(pattern: RegExp): (text: string) => boolean {
  return (text) => pattern.test(text);
}

export const subdomainPattern = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
