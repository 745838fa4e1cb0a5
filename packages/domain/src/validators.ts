import { isValidCalendarDate } from './dates.ts';
import { findUsState } from './us-states.ts';
import {
  type FieldValue,
  fail,
  isEmpty,
  matches,
  rule,
  subdomainPattern,
  type ValidationError,
  type Validator,
} from './validation-core.ts';

export type { FieldValue, ValidationError, Validator } from './validation-core.ts';

export type ClientIdValue = FieldValue | readonly (string | number)[];

export type FieldValues = Readonly<Record<string, unknown>>;

export type OptionValue = string | number;

/** An allowed option: a bare value or a `{ value }` object such as a select option. */
export type AllowedOption = OptionValue | { readonly value: OptionValue };

/** Our own plain messages for the shared validators; the spec gives none. */
export const validatorMessages = {
  invalidClientId: 'Select a client.',
  decimal: 'Enter a number, with or without a decimal part.',
  integer: 'Enter a whole number.',
  minValue: (min: number, inclusive: boolean) =>
    inclusive ? `Enter a value of ${min} or more.` : `Enter a value greater than ${min}.`,
  maxValue: (max: number, inclusive: boolean) =>
    inclusive ? `Enter a value of ${max} or less.` : `Enter a value less than ${max}.`,
  range: (min: number, max: number, inclusive: boolean) =>
    inclusive
      ? `Enter a value from ${min} to ${max}.`
      : `Enter a value greater than ${min} and less than ${max}.`,
  lengthRange: (min: number, max: number) => `Enter between ${min} and ${max} characters.`,
  exactLength: (length: number) => `Enter exactly ${length} characters.`,
  identifier: 'Start with a letter, then use only letters, digits, underscores or hyphens.',
  email: 'Enter a valid email address.',
  phone: 'Enter a valid phone number.',
  shortOrLongCode: 'Enter a valid phone number or a 5-digit short code.',
  ssn: 'Enter a valid Social Security number, such as 123-45-6789.',
  date: 'Enter a valid date as day/month/year.',
  subdomain: 'Use lowercase letters, digits and inner hyphens only, at most 63 characters.',
  usState: 'Enter a US state name or its two-letter abbreviation.',
  nonZero: 'Enter a value other than zero.',
  oneOf: 'Enter a value in one of the accepted formats.',
  day: 'Enter a day from 1 to 31.',
  month: 'Enter a month from 1 to 12.',
  year: 'Enter the year in digits.',
  atLeastOneHasValue: 'Fill in at least one of these fields.',
  onlyAlpha: 'Use letters only.',
  onlyNumeric: 'Use digits only.',
  onlyAlphaOrNumeric: 'Use letters and digits only.',
  whiteSpace: 'Enter more than spaces.',
  validOptionValidator: 'Choose one of the listed options.',
} as const;

const digitsPattern = /^\d+$/;
const decimalPattern = /^\d+(?:\.\d+)?$/;
const numericPattern = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
const identifierPattern = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** The WHATWG e-mail pattern, except that the domain needs at least one dot. */
const emailPattern =
  /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const internationalPhonePattern = /^\+[1-9]\d{10}$/;
const usPhonePattern = /^(?:1[ .-]?)?(?:\(\d{3}\)|\d{3})[ .-]?\d{3}[ .-]?\d{4}$/;
const shortCodePattern = /^[1-9]\d{4}$/;
const ssnPattern = /^\d{3}-?\d{2}-?\d{4}$/;
const dayMonthYearPattern = /^(\d{1,2})([/-])(\d{1,2})\2(\d{4})$/;
const zerosPattern = /^0+(?:\.0+)?$/;
const whiteSpacePattern = /^\s+$/;

/** The number a field holds, or null when it holds no plain decimal number. */
function numericValue(value: string | number): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  const text = value.trim();
  return numericPattern.test(text) ? Number(text) : null;
}

function isWithinBounds(number: number, min: number, max: number, inclusive: boolean): boolean {
  return inclusive ? number >= min && number <= max : number > min && number < max;
}

/** Numeric bounds; a value that is not a number passes (the number validators report that). */
function bounds(key: string, message: string, min: number, max: number, inclusive: boolean): Validator {
  return (value) => {
    if (isEmpty(value)) return null;
    const number = numericValue(value);
    return number === null || isWithinBounds(number, min, max, inclusive) ? null : fail(key, message);
  };
}

function isPhone(text: string): boolean {
  return internationalPhonePattern.test(text) || usPhonePattern.test(text);
}

function isValidDayMonthYear(text: string): boolean {
  const match = dayMonthYearPattern.exec(text);
  if (!match) return false;
  return isValidCalendarDate(Number(match[4]), Number(match[3]), Number(match[1]));
}

function isIntegerBetween(text: string, min: number, max: number): boolean {
  return /^\d{1,2}$/.test(text) && Number(text) >= min && Number(text) <= max;
}

function hasValue(value: unknown): boolean {
  if (value === null || value === undefined) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function optionValue(option: AllowedOption): OptionValue {
  return typeof option === 'object' ? option.value : option;
}

const integer = rule('integer', validatorMessages.integer, matches(digitsPattern));

export const validators = {
  /** Fails when the value is a non-empty array holding only -1 (the "no client" choice). */
  invalidClientId: (value: ClientIdValue): ValidationError | null =>
    Array.isArray(value) && value.length > 0 && value.every((id) => String(id) === '-1')
      ? fail('invalidClientId', validatorMessages.invalidClientId)
      : null,
  decimal: rule('decimal', validatorMessages.decimal, matches(decimalPattern)),
  integer,
  /** An integer or a decimal, reported as an integer error. */
  number: rule('integer', validatorMessages.integer, matches(decimalPattern)),
  minValue: (min: number, inclusive = true): Validator =>
    bounds('minValue', validatorMessages.minValue(min, inclusive), min, Number.POSITIVE_INFINITY, inclusive),
  maxValue: (max: number, inclusive = true): Validator =>
    bounds('maxValue', validatorMessages.maxValue(max, inclusive), Number.NEGATIVE_INFINITY, max, inclusive),
  range: (min: number, max: number, inclusive = true): Validator =>
    bounds('range', validatorMessages.range(min, max, inclusive), min, max, inclusive),
  lengthRange: (min: number, max: number): Validator =>
    rule(
      'lengthRange',
      validatorMessages.lengthRange(min, max),
      (text) => text.length >= min && text.length <= max,
    ),
  exactLength: (length: number): Validator =>
    rule('exactLength', validatorMessages.exactLength(length), (text) => text.length === length),
  identifier: rule('identifier', validatorMessages.identifier, matches(identifierPattern)),
  email: rule('email', validatorMessages.email, matches(emailPattern)),
  phone: rule('phone', validatorMessages.phone, isPhone),
  shortOrLongCode: rule(
    'shortOrLongCode',
    validatorMessages.shortOrLongCode,
    (text) => isPhone(text) || shortCodePattern.test(text),
  ),
  ssn: rule('ssn', validatorMessages.ssn, matches(ssnPattern)),
  date: rule('date', validatorMessages.date, isValidDayMonthYear),
  subdomain: rule('subdomain', validatorMessages.subdomain, matches(subdomainPattern)),
  usState: rule('usState', validatorMessages.usState, (text) => findUsState(text) !== null),
  nonZero: rule('nonZero', validatorMessages.nonZero, (text) => !zerosPattern.test(text)),
  /** Passes when at least one of the validators passes. */
  oneOf:
    (...alternatives: readonly Validator[]): Validator =>
    (value) =>
      isEmpty(value) || alternatives.some((validate) => validate(value) === null)
        ? null
        : fail('oneOf', validatorMessages.oneOf),
  day: rule('day', validatorMessages.day, (text) => isIntegerBetween(text, 1, 31)),
  month: rule('month', validatorMessages.month, (text) => isIntegerBetween(text, 1, 12)),
  year: rule('year', validatorMessages.year, matches(digitsPattern)),
  /** Validates an object of field values: fails when every named field is empty. */
  atLeastOneHasValue:
    (fieldNames: readonly string[]): Validator<FieldValues | null | undefined | ''> =>
    (values) =>
      !values || fieldNames.some((name) => hasValue(values[name]))
        ? null
        : fail('atLeastOneHasValue', validatorMessages.atLeastOneHasValue),
  onlyAlpha: rule('onlyAlpha', validatorMessages.onlyAlpha, matches(/^[A-Za-z]+$/)),
  onlyNumeric: rule('onlyNumeric', validatorMessages.onlyNumeric, matches(digitsPattern)),
  onlyAlphaOrNumeric: rule(
    'onlyAlphaOrNumeric',
    validatorMessages.onlyAlphaOrNumeric,
    matches(/^[A-Za-z0-9]+$/),
  ),
  /** Fails when the value is only whitespace. */
  whiteSpace: rule('whiteSpace', validatorMessages.whiteSpace, (text) => !whiteSpacePattern.test(text)),
  validOptionValidator: (options: readonly AllowedOption[]): Validator => {
    const allowed = new Set(options.map((option) => String(optionValue(option))));
    return rule('validOptionValidator', validatorMessages.validOptionValidator, (text) => allowed.has(text));
  },
};
