import { type FormEvent, useRef } from 'react';
import { useNavigate } from 'react-router';
import { FormAlert } from '../../../components/form-field.tsx';
import { paths } from '../../../config/paths.ts';
import { useCheckedForm } from '../../../lib/forms/use-checked-form.ts';
import { usePortalApi } from '../../../lib/session/portal-api.ts';
import { commonRefusalMessage, errorCodeOf } from '../../../lib/session/sign-in-errors.ts';
import { CustomerIdField, customerIdCheck, customerIdMessages } from '../common/customer-id-field.tsx';
import { useStepUp } from '../common/step-up.tsx';

type LaunchKind = 'customer' | 'dashBilling';

/** Which of the form's two buttons sent it: Enter in the field sends the first, the customer portal. */
function launchKindOf(event: FormEvent<HTMLFormElement>): LaunchKind {
  const { submitter } = event.nativeEvent as SubmitEvent;
  return submitter?.getAttribute('value') === 'dashBilling' ? 'dashBilling' : 'customer';
}

/** The admin opens a customer's portal, or its dash billing, as that customer (docs/rules.md#launch). */
export function LaunchPanel() {
  const launch = usePortalApi('admin').launch;
  const navigate = useNavigate();
  // Launching needs a second factor used within the last minutes: the panel asks for one, then launches.
  const { withStepUp, prompt } = useStepUp('admin');
  const form = useCheckedForm({ customerId: customerIdCheck }, 'after-leaving');
  const fieldRef = useRef<HTMLInputElement>(null);

  const launchInto = (kind: LaunchKind) =>
    form.onSubmitWith(async ({ customerId }) => {
      try {
        // This panel explains every refusal itself (docs/decisions/026).
        const outcome = await withStepUp(() =>
          launch[kind](Number(customerId.trim()), { explainedByPage: true }),
        );
        if (outcome.done) navigate(paths.customerPortal.launch.href(outcome.value.token));
        // Canceled: back to the field the person launched from.
        else fieldRef.current?.focus();
      } catch (error) {
        form.setRefusal(
          errorCodeOf(error) === 'ItemNotFound'
            ? customerIdMessages.noSuchCustomer
            : commonRefusalMessage(error),
        );
      }
    });

  return (
    <>
      {prompt}
      <form
        noValidate
        onSubmit={(event) => launchInto(launchKindOf(event))(event)}
        onChange={form.onChange}
        onBlur={form.onBlur}
        aria-labelledby="launch-title"
        hidden={prompt !== null}
      >
        <h2 id="launch-title" className="section-title">
          Launch a customer's portal
        </h2>
        {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
        <CustomerIdField error={form.errors.customerId} inputRef={fieldRef} />
        <div className="portal-actions">
          <button className="button" type="submit" disabled={form.submitting}>
            Open the customer portal
          </button>
          <button
            className="button button--secondary"
            type="submit"
            name="launchKind"
            value="dashBilling"
            disabled={form.submitting}
          >
            Open dash billing
          </button>
        </div>
      </form>
    </>
  );
}
