import { validators } from '@entry/domain';
import type { Ref } from 'react';
import { FormField } from '../../../components/form-field.tsx';

export const customerIdMessages = {
  enterCustomerId: 'Enter the customer id.',
  customerIdDigits: 'A customer id is a whole number, such as 1001.',
  noSuchCustomer: 'No customer has this id.',
} as const;

export function customerIdCheck(value: string): string | null {
  const text = value.trim();
  if (text === '') return customerIdMessages.enterCustomerId;
  return validators.integer(text) === null && Number(text) > 0 ? null : customerIdMessages.customerIdDigits;
}

/** The field of an organization's customer id, as the launch panel and the console's forms ask for it. */
export function CustomerIdField({
  error,
  inputRef,
}: {
  error: string | undefined;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <FormField
      label="Customer id"
      type="text"
      inputMode="numeric"
      autoComplete="off"
      name="customerId"
      inputRef={inputRef}
      error={error}
    />
  );
}
