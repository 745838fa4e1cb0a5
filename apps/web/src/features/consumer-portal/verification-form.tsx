import {
  dateOfBirthYears,
  dateOnlyFromParts,
  datePickerDays,
  datePickerMonths,
  type LookupSignInRequest,
  type VerificationField,
  validators,
} from '@entry/domain';
import { useId, useState } from 'react';
import { useForm } from 'react-hook-form';
import { FormAlert, FormField } from '../session/form-field.tsx';
import { consumerMessages } from './consumer-messages.ts';

export interface VerificationValues {
  last4Ssn: string;
  postalCode: string;
  birthMonth: string;
  birthDay: string;
  birthYear: string;
}

export type VerificationAnswers = Pick<LookupSignInRequest, 'last4Ssn' | 'postalCode' | 'dateOfBirth'>;

const emptyValues: VerificationValues = {
  last4Ssn: '',
  postalCode: '',
  birthMonth: '',
  birthDay: '',
  birthYear: '',
};

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

function digits(length: number, messages: { required: string; invalid: string }) {
  return (value: string) => {
    const text = value.trim();
    if (text === '') return messages.required;
    return validators.onlyNumeric(text) === null && validators.exactLength(length)(text) === null
      ? true
      : messages.invalid;
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
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitted, isSubmitting },
  } = useForm<VerificationValues>({ defaultValues: emptyValues });
  const shown = (message: string | undefined) => (isSubmitted ? message : undefined);
  const asks = (field: VerificationField) => fields.includes(field);
  const dateError = shown(
    errors.birthYear?.message ?? errors.birthMonth?.message ?? errors.birthDay?.message,
  );
  const dateMessages = consumerMessages.fields.dateOfBirth;

  const submit = handleSubmit(async (values) => {
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
    <div>
      <label className="field__label" htmlFor={`${dateErrorId}-${name}`}>
        {label}
      </label>
      <select
        id={`${dateErrorId}-${name}`}
        className="field__select"
        aria-invalid={dateError !== undefined}
        aria-describedby={dateError === undefined ? undefined : dateErrorId}
        {...register(name, {
          validate: (value, all) => {
            if (value === '') return dateMessages.required;
            if (name !== 'birthYear') return true;
            return dateOnlyFromParts(all.birthYear, all.birthMonth, all.birthDay) === null
              ? dateMessages.invalid
              : true;
          },
        })}
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
    <form noValidate onSubmit={submit}>
      {refusal !== null && <FormAlert>{refusal}</FormAlert>}
      {asks('last4Ssn') && (
        <FormField
          label={consumerMessages.fields.last4Ssn.label}
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          registration={register('last4Ssn', { validate: digits(4, consumerMessages.fields.last4Ssn) })}
          error={shown(errors.last4Ssn?.message)}
        />
      )}
      {asks('postalCode') && (
        <FormField
          label={consumerMessages.fields.postalCode.label}
          type="text"
          inputMode="numeric"
          autoComplete="postal-code"
          maxLength={5}
          registration={register('postalCode', { validate: digits(5, consumerMessages.fields.postalCode) })}
          error={shown(errors.postalCode?.message)}
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
      <button className="button button--block" type="submit" disabled={isSubmitting} aria-busy={isSubmitting}>
        {submitLabel}
      </button>
    </form>
  );
}
