import {
  dateOfBirthYears,
  dateOnlyFromParts,
  datePickerDays,
  datePickerMonths,
  type LookupSignInRequest,
  type VerificationField,
} from '@entry/domain';
import { useId, useState } from 'react';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import { digitsCheck, type FieldCheck, useCheckedForm } from '../../lib/session/use-checked-form.ts';
import { consumerMessages } from './consumer-messages.ts';

export type VerificationAnswers = Pick<LookupSignInRequest, 'last4Ssn' | 'postalCode' | 'dateOfBirth'>;

const monthNames = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

type AnswerName = 'last4Ssn' | 'postalCode' | 'birthMonth' | 'birthDay' | 'birthYear';

const dateMessages = consumerMessages.fields.dateOfBirth;
const datePartChosen: FieldCheck<AnswerName> = (value) => (value === '' ? dateMessages.required : null);

const notAsked: FieldCheck<AnswerName> = () => null;

const birthDateExists: FieldCheck<AnswerName> = (value, values) =>
  datePartChosen(value, values) ??
  (dateOnlyFromParts(values.birthYear, values.birthMonth, values.birthDay) === null
    ? dateMessages.invalid
    : null);

/** The checks of the fields a link's sign-in type asks for, in the order the form shows them. */
function checksFor(fields: readonly VerificationField[]): Record<AnswerName, FieldCheck<AnswerName>> {
  const asksDate = fields.includes('dateOfBirth');
  return {
    last4Ssn: fields.includes('last4Ssn') ? digitsCheck(4, consumerMessages.fields.last4Ssn) : notAsked,
    postalCode: fields.includes('postalCode') ? digitsCheck(5, consumerMessages.fields.postalCode) : notAsked,
    birthMonth: asksDate ? datePartChosen : notAsked,
    birthDay: asksDate ? datePartChosen : notAsked,
    birthYear: asksDate ? birthDateExists : notAsked,
  };
}

/**
 * The answers a lookup sign-in needs: one field for a link's sign-in type, or all three. Errors
 * show after submission only (the stricter display of spec section 5).
 */
export function VerificationForm({
  fields,
  submitLabel,
  refusal,
  onSubmit,
  today = new Date(),
}: {
  fields: readonly VerificationField[];
  submitLabel: string;
  refusal: string | null;
  onSubmit: (answers: VerificationAnswers) => Promise<void>;
  today?: Date;
}) {
  const [years] = useState(() => dateOfBirthYears(today));
  const dateErrorId = useId();
  const form = useCheckedForm(checksFor(fields));
  const errors = form.errors;
  const asks = (field: VerificationField) => fields.includes(field);
  const dateError = errors.birthYear ?? errors.birthMonth ?? errors.birthDay;

  const submit = form.onSubmitWith(async (values) => {
    await onSubmit({
      ...(asks('last4Ssn') ? { last4Ssn: values.last4Ssn.trim() } : {}),
      ...(asks('postalCode') ? { postalCode: values.postalCode.trim() } : {}),
      ...(asks('dateOfBirth')
        ? { dateOfBirth: dateOnlyFromParts(values.birthYear, values.birthMonth, values.birthDay) }
        : {}),
    });
  });

  const dateSelect = (
    name: 'birthMonth' | 'birthDay' | 'birthYear',
    label: string,
    options: readonly { value: string; text: string }[],
  ) => (
    <div className={name === 'birthMonth' ? 'date-parts__month' : undefined}>
      <label className="field__label" htmlFor={`${dateErrorId}-${name}`}>
        {label}
      </label>
      <select
        id={`${dateErrorId}-${name}`}
        className="field__select"
        aria-invalid={dateError !== undefined}
        aria-describedby={dateError === undefined ? undefined : dateErrorId}
        name={name}
        defaultValue=""
      >
        <option value="">—</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.text}
          </option>
        ))}
      </select>
    </div>
  );

  return (
    <form noValidate onSubmit={submit} onChange={form.onChange}>
      {refusal !== null && <FormAlert>{refusal}</FormAlert>}
      {asks('last4Ssn') && (
        <FormField
          label={consumerMessages.fields.last4Ssn.label}
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          registration={{ name: 'last4Ssn' }}
          error={errors.last4Ssn}
        />
      )}
      {asks('postalCode') && (
        <FormField
          label={consumerMessages.fields.postalCode.label}
          type="text"
          inputMode="numeric"
          autoComplete="postal-code"
          maxLength={5}
          registration={{ name: 'postalCode' }}
          error={errors.postalCode}
        />
      )}
      {asks('dateOfBirth') && (
        <fieldset className="date-parts">
          <legend>{dateMessages.legend}</legend>
          {dateSelect(
            'birthMonth',
            'Month',
            datePickerMonths.map((month, index) => ({
              value: month,
              text: `${month} – ${monthNames[index] ?? ''}`,
            })),
          )}
          {dateSelect(
            'birthDay',
            'Day',
            datePickerDays.map((day) => ({ value: day, text: day })),
          )}
          {dateSelect(
            'birthYear',
            'Year',
            years.map((year) => ({ value: year, text: year })),
          )}
          {dateError !== undefined && (
            <p className="field__error date-parts__error" id={dateErrorId} role="alert">
              {dateError}
            </p>
          )}
        </fieldset>
      )}
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
