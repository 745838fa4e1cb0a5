import {
  dateOfBirthYears,
  dateOnlyFromParts,
  datePickerDays,
  datePickerMonths,
  type LookupSignInRequest,
  type VerificationField,
} from '@entry/domain';
import { useId, useState } from 'react';
import { layoutTexts } from '../../components/auth-layout/layout-texts.ts';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import type { Catalogue } from '../../i18n/catalogue.ts';
import { monthNames } from '../../i18n/formats.ts';
import { useTexts } from '../../i18n/language.ts';
import { digitsCheck, type FieldCheck, useCheckedForm } from '../../lib/forms/use-checked-form.ts';
import { consumerMessages } from './consumer-messages.ts';

export type VerificationAnswers = Pick<LookupSignInRequest, 'last4Ssn' | 'postalCode' | 'dateOfBirth'>;

type AnswerName = 'last4Ssn' | 'postalCode' | 'birthMonth' | 'birthDay' | 'birthYear';

type FieldTexts = Catalogue['consumer']['fields'];

const notAsked: FieldCheck<AnswerName> = () => null;

/** The checks of the fields a link's sign-in type asks for, in the order the form shows them. */
function checksFor(
  fields: readonly VerificationField[],
  texts: FieldTexts,
): Record<AnswerName, FieldCheck<AnswerName>> {
  const asksDate = fields.includes('dateOfBirth');
  const datePartChosen: FieldCheck<AnswerName> = (value) =>
    value === '' ? texts.dateOfBirth.required : null;
  const birthDateExists: FieldCheck<AnswerName> = (value, values) =>
    datePartChosen(value, values) ??
    (dateOnlyFromParts(values.birthYear, values.birthMonth, values.birthDay) === null
      ? texts.dateOfBirth.invalid
      : null);
  return {
    last4Ssn: fields.includes('last4Ssn') ? digitsCheck(4, texts.last4Ssn) : notAsked,
    postalCode: fields.includes('postalCode') ? digitsCheck(5, texts.postalCode) : notAsked,
    birthMonth: asksDate ? datePartChosen : notAsked,
    birthDay: asksDate ? datePartChosen : notAsked,
    birthYear: asksDate ? birthDateExists : notAsked,
  };
}

/**
 * The answers a lookup sign-in needs: one field for a link's sign-in type, or all three. Errors
 * show after submission only (docs/rules.md#forms).
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
  const texts = useTexts('consumer', consumerMessages).fields;
  const monthNamesShown = monthNames(useTexts('layout', layoutTexts).locale);
  const form = useCheckedForm(checksFor(fields, texts));
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
          label={texts.last4Ssn.label}
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={4}
          name="last4Ssn"
          error={errors.last4Ssn}
        />
      )}
      {asks('postalCode') && (
        <FormField
          label={texts.postalCode.label}
          type="text"
          inputMode="numeric"
          autoComplete="postal-code"
          maxLength={5}
          name="postalCode"
          error={errors.postalCode}
        />
      )}
      {asks('dateOfBirth') && (
        <fieldset className="date-parts">
          <legend>{texts.dateOfBirth.legend}</legend>
          {dateSelect(
            'birthMonth',
            texts.dateOfBirth.month,
            datePickerMonths.map((month, index) => ({
              value: month,
              text: `${month} – ${monthNamesShown[index] ?? ''}`,
            })),
          )}
          {dateSelect(
            'birthDay',
            texts.dateOfBirth.day,
            datePickerDays.map((day) => ({ value: day, text: day })),
          )}
          {dateSelect(
            'birthYear',
            texts.dateOfBirth.year,
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
