import type { PasskeySummaryResult } from '@entry/client';
import { passkeyNameMaxLength } from '@entry/domain';
import { useState } from 'react';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { useAction } from '../../../lib/forms/use-action.ts';
import { type FieldCheck, useCheckedForm, useFocusWhen } from '../../../lib/forms/use-checked-form.ts';
import { Confirm } from '../common/confirm.tsx';
import { browserHasPasskeys, createPasskey } from '../common/passkey-ceremony.ts';
import { secondFactorRefusal } from '../common/second-factor-errors.ts';
import { secondFactorMessages } from '../common/second-factor-messages.ts';
import type { SectionProps } from './section-props.ts';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

const passkeyNameCheck: FieldCheck<'name'> = (value) => {
  const name = value.trim();
  if (name === '') return secondFactorMessages.enterPasskeyName;
  return name.length > passkeyNameMaxLength ? secondFactorMessages.passkeyNameLength : null;
};
const passkeyNameChecks = { name: passkeyNameCheck };

/** One passkey: its name and dates, renamed in place, removed after a question. */
function PasskeyItem({
  passkey,
  secondFactors,
  withStepUp,
  onChanged,
}: {
  passkey: PasskeySummaryResult;
} & Pick<SectionProps, 'secondFactors' | 'withStepUp' | 'onChanged'>) {
  const [mode, setMode] = useState<'view' | 'rename' | 'remove'>('view');
  // Once renaming or removing has been opened, the Rename button has the focus back when it closes.
  const [opened, setOpened] = useState(false);
  const form = useCheckedForm(passkeyNameChecks);
  const removing = useAction(form.setRefusal);
  const renameRef = useFocusWhen<HTMLButtonElement>(opened);
  const nameFieldRef = useFocusWhen<HTMLInputElement>(true);

  const open = (next: 'rename' | 'remove') => {
    setMode(next);
    setOpened(true);
  };

  const rename = form.onSubmitWith(async ({ name }) => {
    const outcome = await withStepUp(() =>
      secondFactors.renamePasskey(passkey.id, { name: name.trim() }, { explainedByPage: true }),
    );
    if (!outcome.done) return;
    setMode('view');
    onChanged(`The passkey is now named ${name.trim()}.`);
  }, secondFactorRefusal);

  const remove = () =>
    removing.run(async () => {
      const outcome = await withStepUp(() =>
        secondFactors.removePasskey(passkey.id, { explainedByPage: true }),
      );
      if (outcome.done) onChanged(`The passkey ${passkey.name} is removed.`);
    }, secondFactorRefusal);

  return (
    <li className="factor-list__item">
      <p className="factor-list__name">{passkey.name}</p>
      <p className="muted factor-list__facts">
        Added {dateFormat.format(passkey.createdAt)}.{' '}
        {passkey.lastUsedAt === null
          ? 'Not used yet.'
          : `Last used ${dateFormat.format(passkey.lastUsedAt)}.`}
        {passkey.backedUp ? ' Synced to your other devices.' : ''}
      </p>
      {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
      {mode === 'view' && (
        <div className="portal-actions">
          <button
            ref={renameRef}
            type="button"
            className="button button--secondary"
            aria-label={`Rename ${passkey.name}`}
            onClick={() => open('rename')}
          >
            Rename
          </button>
          <button
            type="button"
            className="button button--secondary"
            aria-label={`Remove ${passkey.name}`}
            onClick={() => open('remove')}
          >
            Remove
          </button>
        </div>
      )}
      {mode === 'rename' && (
        <form noValidate onSubmit={rename} onChange={form.onChange}>
          <FormField
            label={`New name for ${passkey.name}`}
            type="text"
            autoComplete="off"
            maxLength={passkeyNameMaxLength}
            defaultValue={passkey.name}
            name="name"
            inputRef={nameFieldRef}
            error={form.errors.name}
          />
          <div className="portal-actions">
            <button className="button" type="submit" disabled={form.submitting} aria-busy={form.submitting}>
              Save the name
            </button>
            <button type="button" className="button button--secondary" onClick={() => setMode('view')}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {mode === 'remove' && (
        <Confirm
          question={`Remove the passkey ${passkey.name}? You can no longer sign in with it.`}
          confirmLabel="Remove the passkey"
          busy={removing.busy}
          onConfirm={remove}
          onCancel={() => setMode('view')}
        />
      )}
    </li>
  );
}

/** The user's passkeys, and a new one named and created through the browser's own prompt. */
export function PasskeysSection({
  factors,
  secondFactors,
  canAdd,
  withStepUp,
  onAdded,
  onChanged,
}: SectionProps) {
  const form = useCheckedForm(passkeyNameChecks);
  const supported = browserHasPasskeys();

  const add = form.onSubmitWith(
    async ({ name }) => {
      const outcome = await withStepUp(async () => {
        const { challengeId, options } = await secondFactors.passkeyRegistrationOptions({
          explainedByPage: true,
        });
        const response = await createPasskey(options);
        return secondFactors.addPasskey(
          { challengeId, name: name.trim(), response },
          { explainedByPage: true },
        );
      });
      if (outcome.done) onAdded(outcome.value, `The passkey ${name.trim()} is added.`);
    },
    (error) => secondFactorRefusal(error, 'passkey'),
  );

  return (
    <section className="factor-section" aria-labelledby="passkeys-title">
      <h2 id="passkeys-title" className="section-title">
        Passkeys
      </h2>
      <p>
        A passkey signs you in with your fingerprint, face or screen lock, and works only on this site. It can
        be used alone, without your password.
      </p>
      {factors.passkeys.length > 0 && (
        <ul className="factor-list" aria-label="Your passkeys">
          {factors.passkeys.map((passkey) => (
            <PasskeyItem
              key={passkey.id}
              passkey={passkey}
              secondFactors={secondFactors}
              withStepUp={withStepUp}
              onChanged={onChanged}
            />
          ))}
        </ul>
      )}
      {canAdd && supported && (
        <form noValidate onSubmit={add} onChange={form.onChange}>
          {form.refusal !== null && <FormAlert>{form.refusal}</FormAlert>}
          <FormField
            label="Name for a new passkey"
            hint="To tell your passkeys apart, such as Work laptop or Phone."
            type="text"
            autoComplete="off"
            maxLength={passkeyNameMaxLength}
            name="name"
            error={form.errors.name}
          />
          <button className="button" type="submit" disabled={form.submitting} aria-busy={form.submitting}>
            Add a passkey
          </button>
        </form>
      )}
      {canAdd && !supported && <p className="muted">{secondFactorMessages.passkeyUnsupported}</p>}
    </section>
  );
}
