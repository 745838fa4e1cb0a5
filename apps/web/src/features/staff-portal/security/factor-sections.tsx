import type { PasskeySummaryResult, SecondFactorsApi, SecondFactorsResult } from '@entry/client';
import { type EnrolmentResult, passkeyNameMaxLength, type TotpEnrolment } from '@entry/domain';
import { useId, useState } from 'react';
import { FormAlert, FormField } from '../../../components/form-field.tsx';
import { useAction } from '../../../lib/forms/use-action.ts';
import { type FieldCheck, useCheckedForm, useFocusWhen } from '../../../lib/forms/use-checked-form.ts';
import { browserHasPasskeys, createPasskey } from '../common/passkey-ceremony.ts';
import { secondFactorRefusal } from '../common/second-factor-errors.ts';
import { secondFactorMessages } from '../common/second-factor-messages.ts';
import type { StepUpOutcome } from '../common/step-up.tsx';
import { TotpSetup } from './totp-setup.tsx';

/** What every section of the security page is given. */
export interface SectionProps {
  factors: SecondFactorsResult;
  secondFactors: SecondFactorsApi;
  /** The policy lets this user add factors. */
  canAdd: boolean;
  withStepUp<T>(action: () => Promise<T>): Promise<StepUpOutcome<T>>;
  /** A factor was added: the session was upgraded, and the first factor brings recovery codes. */
  onAdded(result: EnrolmentResult, message: string): void;
  /** Something else changed: announce it and read the factors again. */
  onChanged(message: string): void;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

const passkeyNameCheck: FieldCheck<'name'> = (value) => {
  const name = value.trim();
  if (name === '') return secondFactorMessages.enterPasskeyName;
  return name.length > passkeyNameMaxLength ? secondFactorMessages.passkeyNameLength : null;
};
const passkeyNameChecks = { name: passkeyNameCheck };

const totpRefusal = (error: unknown) => secondFactorRefusal(error, 'totp');

/** A question before a change that cannot be undone; the safe answer takes the focus. */
export function Confirm({
  question,
  confirmLabel,
  onConfirm,
  onCancel,
  busy,
}: {
  question: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const keepRef = useFocusWhen<HTMLButtonElement>(true);
  const questionId = useId();
  return (
    <div className="confirm">
      <p id={questionId}>{question}</p>
      <div className="portal-actions">
        <button
          type="button"
          className="button"
          disabled={busy}
          aria-busy={busy}
          aria-describedby={questionId}
          onClick={onConfirm}
        >
          {confirmLabel}
        </button>
        <button
          ref={keepRef}
          type="button"
          className="button button--secondary"
          aria-describedby={questionId}
          onClick={onCancel}
        >
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * A button whose change waits for a yes to its question; the button has the focus back once the
 * question is answered. `onConfirm` is an action's run (`busy` is that action's): it shows its own refusal.
 */
function AskFirst({
  label,
  question,
  confirmLabel,
  busy,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  busy: boolean;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [asked, setAsked] = useState(false);
  const openRef = useFocusWhen<HTMLButtonElement>(asked);

  async function confirm() {
    await onConfirm();
    setAsking(false);
  }

  if (asking) {
    return (
      <Confirm
        question={question}
        confirmLabel={confirmLabel}
        busy={busy}
        onConfirm={confirm}
        onCancel={() => setAsking(false)}
      />
    );
  }
  return (
    <div className="portal-actions">
      <button
        ref={openRef}
        type="button"
        className="button button--secondary"
        onClick={() => {
          setAsking(true);
          setAsked(true);
        }}
      >
        {label}
      </button>
    </div>
  );
}

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

/** The authenticator app: set up with a QR code and a first code, or removed after a question. */
export function AuthenticatorSection({
  factors,
  secondFactors,
  canAdd,
  withStepUp,
  onAdded,
  onChanged,
}: SectionProps) {
  // 'canceled' after a set-up was canceled: the start button is back, and has the focus back.
  const [enrolment, setEnrolment] = useState<TotpEnrolment | 'canceled' | null>(null);
  const changing = useAction();
  const startRef = useFocusWhen<HTMLButtonElement>(enrolment === 'canceled');

  const start = () =>
    changing.run(async () => {
      const outcome = await withStepUp(() => secondFactors.addTotp({ explainedByPage: true }));
      if (outcome.done) setEnrolment(outcome.value);
    }, totpRefusal);

  const remove = () =>
    changing.run(async () => {
      const outcome = await withStepUp(() => secondFactors.removeTotp({ explainedByPage: true }));
      if (outcome.done) onChanged('The authenticator app is removed.');
    }, totpRefusal);

  return (
    <section className="factor-section" aria-labelledby="authenticator-title">
      <h2 id="authenticator-title" className="section-title">
        Authenticator app
      </h2>
      {changing.refusal !== null && <FormAlert>{changing.refusal}</FormAlert>}
      {factors.totp.enrolled ? (
        <>
          <p>An authenticator app is set up: it shows a new 6-digit code every 30 seconds.</p>
          <AskFirst
            label="Remove the authenticator app"
            question="Remove the authenticator app? Its codes will no longer work."
            confirmLabel="Remove the app"
            busy={changing.busy}
            onConfirm={remove}
          />
        </>
      ) : enrolment !== null && enrolment !== 'canceled' ? (
        <TotpSetup
          enrolment={enrolment}
          confirm={(code) => withStepUp(() => secondFactors.confirmTotp({ code }, { explainedByPage: true }))}
          onConfirmed={(result) => {
            setEnrolment(null);
            onAdded(result, 'The authenticator app is set up.');
          }}
          onCancel={() => setEnrolment('canceled')}
        />
      ) : (
        <>
          <p>
            An app such as Google Authenticator, Microsoft Authenticator or 1Password shows a code to type in.
          </p>
          {canAdd && (
            <div className="portal-actions">
              <button
                ref={startRef}
                type="button"
                className="button"
                disabled={changing.busy}
                aria-busy={changing.busy}
                onClick={start}
              >
                Set up an authenticator app
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

/** How many recovery codes are left, and a new set (the old one stops working) after a question. */
export function RecoveryCodesSection({
  factors,
  secondFactors,
  withStepUp,
  onCodes,
}: Pick<SectionProps, 'factors' | 'secondFactors' | 'withStepUp'> & { onCodes(codes: string[]): void }) {
  const regenerating = useAction();
  const left = factors.recoveryCodesLeft;

  const regenerate = () =>
    regenerating.run(async () => {
      const outcome = await withStepUp(() =>
        secondFactors.regenerateRecoveryCodes({ explainedByPage: true }),
      );
      if (outcome.done) onCodes(outcome.value.recoveryCodes);
    }, secondFactorRefusal);

  return (
    <section className="factor-section" aria-labelledby="recovery-title">
      <h2 id="recovery-title" className="section-title">
        Recovery codes
      </h2>
      {regenerating.refusal !== null && <FormAlert>{regenerating.refusal}</FormAlert>}
      <p data-testid="recovery-codes-left">
        {left === 1 ? '1 recovery code is left.' : `${left} recovery codes are left.`}
        {left <= 3 ? ' Get new ones before you run out.' : ''}
      </p>
      <AskFirst
        label="Get new recovery codes"
        question="Get new recovery codes? The codes you have now will stop working."
        confirmLabel="Get new codes"
        busy={regenerating.busy}
        onConfirm={regenerate}
      />
    </section>
  );
}
