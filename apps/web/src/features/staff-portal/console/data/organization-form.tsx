import { useCheckedForm } from '../../../../lib/forms/use-checked-form.ts';
import { CustomerIdField, customerIdCheck } from '../../common/customer-id-field.tsx';

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
