import { validators } from '@entry/domain';
import { useForm } from 'react-hook-form';
import { FormField } from '../../../../components/form-field.tsx';
import { launchPanelMessages } from '../../launch-panel.tsx';

/** The checks of a customer id typed in a field: a whole number above 0. */
export function customerIdProblem(text: string, required: boolean): string | true {
  const value = text.trim();
  if (value === '') return required ? launchPanelMessages.enterCustomerId : true;
  return validators.integer(value) === null && Number(value) > 0
    ? true
    : launchPanelMessages.customerIdDigits;
}

/** Chooses the organization a page works on, by its customer id. */
export function OrganizationForm({ onChoose }: { onChoose: (customerId: number) => void }) {
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitted },
  } = useForm<{ customerId: string }>({ defaultValues: { customerId: '' } });
  return (
    <form
      noValidate
      aria-label="Organization"
      onSubmit={handleSubmit(({ customerId }) => onChoose(Number(customerId.trim())))}
    >
      <FormField
        label="Customer id"
        type="text"
        inputMode="numeric"
        autoComplete="off"
        registration={register('customerId', { validate: (value) => customerIdProblem(value, true) })}
        error={isSubmitted ? errors.customerId?.message : undefined}
      />
      <div className="portal-actions">
        <button className="button" type="submit">
          Show this organization
        </button>
      </div>
    </form>
  );
}
