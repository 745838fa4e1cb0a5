import { FormField } from '../../../../components/form-field.tsx';
import { useCheckedForm } from '../../../../lib/forms/use-checked-form.ts';
import { customerIdCheck } from '../../launch/launch-panel.tsx';

/** The field of an organization's customer id, as the console's forms ask for it. */
export function CustomerIdField({ error }: { error: string | undefined }) {
  return (
    <FormField
      label="Customer id"
      type="text"
      inputMode="numeric"
      autoComplete="off"
      name="customerId"
      error={error}
    />
  );
}

/** Chooses the organization a page works on, by its customer id. */
export function OrganizationForm({ onChoose }: { onChoose: (customerId: number) => void }) {
  const form = useCheckedForm({ customerId: customerIdCheck }, 'after-leaving');
  return (
    <form
      noValidate
      aria-label="Organization"
      onChange={form.onChange}
      onBlur={form.onBlur}
      onSubmit={form.onSubmitWith(async ({ customerId }) => onChoose(Number(customerId.trim())))}
    >
      <CustomerIdField error={form.errors.customerId} />
      <div className="portal-actions">
        <button className="button" type="submit">
          Show this organization
        </button>
      </div>
    </form>
  );
}
