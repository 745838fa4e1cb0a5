import { validators } from '@entry/domain';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import { paths } from '../../config/paths.ts';
import { usePortalApi } from '../../lib/session/portal-api.ts';
import { commonRefusalMessage, errorCodeOf } from '../../lib/session/sign-in-errors.ts';
import { useStepUp } from './step-up.tsx';

const launchPanelMessages = {
  enterCustomerId: 'Enter the customer id.',
  customerIdDigits: 'A customer id is a whole number, such as 1001.',
  noSuchCustomer: 'No customer has this id.',
} as const;

type LaunchKind = 'customer' | 'dashBilling';

/** The admin opens a customer's portal, or its dash billing, as that customer (DESIGN.md section 5). */
export function LaunchPanel() {
  const launch = usePortalApi('admin').launch;
  const navigate = useNavigate();
  // Launching needs a second factor used within the last minutes: the panel asks for one, then launches.
  const { withStepUp, prompt } = useStepUp('admin');
  const [refusal, setRefusal] = useState<string | null>(null);
  const {
    register,
    handleSubmit,
    setFocus,
    formState: { errors, touchedFields, isSubmitted, isSubmitting },
  } = useForm<{ customerId: string }>({ mode: 'onTouched', defaultValues: { customerId: '' } });

  const launchInto = (kind: LaunchKind) =>
    handleSubmit(async ({ customerId }) => {
      setRefusal(null);
      try {
        // This panel explains every refusal itself (docs/decisions/026).
        const outcome = await withStepUp(() =>
          launch[kind](Number(customerId.trim()), { explainedByPage: true }),
        );
        if (outcome.done) navigate(paths.customerPortal.launch.href(outcome.value.token));
        // Canceled: back to the field the person launched from.
        else setFocus('customerId');
      } catch (error) {
        setRefusal(
          errorCodeOf(error) === 'ItemNotFound'
            ? launchPanelMessages.noSuchCustomer
            : commonRefusalMessage(error),
        );
      }
    });

  return (
    <>
      {prompt}
      <form
        noValidate
        onSubmit={launchInto('customer')}
        aria-labelledby="launch-title"
        hidden={prompt !== null}
      >
        <h2 id="launch-title" className="section-title">
          Launch a customer's portal
        </h2>
        {refusal !== null && <FormAlert>{refusal}</FormAlert>}
        <FormField
          label="Customer id"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          registration={register('customerId', {
            validate: (value) => {
              const text = value.trim();
              if (text === '') return launchPanelMessages.enterCustomerId;
              return validators.integer(text) === null && Number(text) > 0
                ? true
                : launchPanelMessages.customerIdDigits;
            },
          })}
          error={isSubmitted || touchedFields.customerId === true ? errors.customerId?.message : undefined}
        />
        <div className="portal-actions">
          <button className="button" type="submit" disabled={isSubmitting}>
            Open the customer portal
          </button>
          <button
            className="button button--secondary"
            type="button"
            disabled={isSubmitting}
            onClick={launchInto('dashBilling')}
          >
            Open dash billing
          </button>
        </div>
      </form>
    </>
  );
}
