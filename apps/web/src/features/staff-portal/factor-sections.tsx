import type { PasskeySummaryResult, SecondFactorsApi, SecondFactorsResult } from '@entry/client';
import { type EnrolmentResult, passkeyNameMaxLength, type TotpEnrolment } from '@entry/domain';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { FormAlert, FormField } from '../../components/form-field.tsx';
import { type FieldCheck, useCheckedForm } from '../../lib/session/use-checked-form.ts';
import { browserHasPasskeys, createPasskey } from './passkey-ceremony.ts';
import { secondFactorRefusal } from './second-factor-errors.ts';
import { secondFactorMessages } from './second-factor-messages.ts';
import type { StepUpOutcome } from './step-up.tsx';
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

/** Focuses `ref`'s element when `when` turns true (a form or question that has just opened). */
function useFocusWhen<T extends HTMLElement>(when: boolean) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (when) ref.current?.focus();
  }, [when]);
  return ref;
}

/** A question before a change that cannot be undone; the safe answer takes the focus. */
function Confirm({
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

/** A button whose change waits for a yes to its question; the button has the focus back after a no. */
function AskFirst({
  label,
  question,
  confirmLabel,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const openRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);

  useEffect(() => {
    if (!asking && wasAsking.current) openRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  async function confirm() {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setAsking(false);
    }
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
        onClick={() => setAsking(true)}
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
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useCheckedForm(passkeyNameChecks);
  const renameRef = useRef<HTMLButtonElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const wasOpen = useRef(false);

  useEffect(() => {
    if (mode === 'rename') {
      const field = formRef.current?.elements.namedItem('name');
      if (field instanceof HTMLInputElement) field.focus();
    } else if (mode === 'view' && wasOpen.current) {
      renameRef.current?.focus();
    }
    wasOpen.current = mode !== 'view';
  }, [mode]);

  const rename = form.onSubmitWith(async ({ name }) => {
    try {
      const outcome = await withStepUp(() =>
        secondFactors.renamePasskey(passkey.id, { name: name.trim() }, { explainedByPage: true }),
      );
      if (!outcome.done) return;
    } catch (error) {
      setRefusal(secondFactorRefusal(error));
      return;
    }
    setMode('view');
    onChanged(`The passkey is now named ${name.trim()}.`);
  });

  async function remove() {
    setRefusal(null);
    setBusy(true);
    try {
      const outcome = await withStepUp(() =>
        secondFactors.removePasskey(passkey.id, { explainedByPage: true }),
      );
      setBusy(false);
      if (!outcome.done) return;
    } catch (error) {
      setBusy(false);
      setRefusal(secondFactorRefusal(error));
      return;
    }
    onChanged(`The passkey ${passkey.name} is removed.`);
  }

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
      {refusal !== null && <FormAlert>{refusal}</FormAlert>}
      {mode === 'view' && (
        <div className="portal-actions">
          <button
            ref={renameRef}
            type="button"
            className="button button--secondary"
            aria-label={`Rename ${passkey.name}`}
            onClick={() => setMode('rename')}
          >
            Rename
          </button>
          <button
            type="button"
            className="button button--secondary"
            aria-label={`Remove ${passkey.name}`}
            onClick={() => setMode('remove')}
          >
            Remove
          </button>
        </div>
      )}
      {mode === 'rename' && (
        <form
          ref={formRef}
          noValidate
          onSubmit={(event: FormEvent<HTMLFormElement>) => {
            setRefusal(null);
            return rename(event);
          }}
          onChange={form.onChange}
        >
          <FormField
            label={`New name for ${passkey.name}`}
            type="text"
            autoComplete="off"
            maxLength={passkeyNameMaxLength}
            defaultValue={passkey.name}
            registration={{ name: 'name' }}
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
          busy={busy}
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
  const [refusal, setRefusal] = useState<string | null>(null);
  const supported = browserHasPasskeys();

  const add = form.onSubmitWith(async ({ name }) => {
    let result: EnrolmentResult;
    try {
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
      if (!outcome.done) return;
      result = outcome.value;
    } catch (error) {
      setRefusal(secondFactorRefusal(error, 'passkey'));
      return;
    }
    onAdded(result, `The passkey ${name.trim()} is added.`);
  });

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
        <form
          noValidate
          onSubmit={(event: FormEvent<HTMLFormElement>) => {
            setRefusal(null);
            return add(event);
          }}
          onChange={form.onChange}
        >
          {refusal !== null && <FormAlert>{refusal}</FormAlert>}
          <FormField
            label="Name for a new passkey"
            hint="To tell your passkeys apart, such as Work laptop or Phone."
            type="text"
            autoComplete="off"
            maxLength={passkeyNameMaxLength}
            registration={{ name: 'name' }}
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
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const startRef = useRef<HTMLButtonElement>(null);

  async function run(action: () => Promise<void>) {
    setRefusal(null);
    setBusy(true);
    try {
      await action();
    } catch (error) {
      setRefusal(secondFactorRefusal(error, 'totp'));
    } finally {
      setBusy(false);
    }
  }

  const start = () =>
    run(async () => {
      const outcome = await withStepUp(() => secondFactors.addTotp({ explainedByPage: true }));
      if (outcome.done) setEnrolment(outcome.value);
    });

  const remove = () =>
    run(async () => {
      const outcome = await withStepUp(() => secondFactors.removeTotp({ explainedByPage: true }));
      if (outcome.done) onChanged('The authenticator app is removed.');
    });

  return (
    <section className="factor-section" aria-labelledby="authenticator-title">
      <h2 id="authenticator-title" className="section-title">
        Authenticator app
      </h2>
      {refusal !== null && <FormAlert>{refusal}</FormAlert>}
      {factors.totp.enrolled ? (
        <>
          <p>An authenticator app is set up: it shows a new 6-digit code every 30 seconds.</p>
          <AskFirst
            label="Remove the authenticator app"
            question="Remove the authenticator app? Its codes will no longer work."
            confirmLabel="Remove the app"
            onConfirm={remove}
          />
        </>
      ) : enrolment !== null ? (
        <TotpSetup
          enrolment={enrolment}
          confirm={(code) => withStepUp(() => secondFactors.confirmTotp({ code }, { explainedByPage: true }))}
          onConfirmed={(result) => {
            setEnrolment(null);
            onAdded(result, 'The authenticator app is set up.');
          }}
          onCancel={() => {
            setEnrolment(null);
            requestAnimationFrame(() => startRef.current?.focus());
          }}
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
                disabled={busy}
                aria-busy={busy}
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
  const [refusal, setRefusal] = useState<string | null>(null);
  const left = factors.recoveryCodesLeft;

  async function regenerate() {
    setRefusal(null);
    try {
      const outcome = await withStepUp(() =>
        secondFactors.regenerateRecoveryCodes({ explainedByPage: true }),
      );
      if (outcome.done) onCodes(outcome.value.recoveryCodes);
    } catch (error) {
      setRefusal(secondFactorRefusal(error));
    }
  }

  return (
    <section className="factor-section" aria-labelledby="recovery-title">
      <h2 id="recovery-title" className="section-title">
        Recovery codes
      </h2>
      {refusal !== null && <FormAlert>{refusal}</FormAlert>}
      <p data-testid="recovery-codes-left">
        {left === 1 ? '1 recovery code is left.' : `${left} recovery codes are left.`}
        {left <= 3 ? ' Get new ones before you run out.' : ''}
      </p>
      <AskFirst
        label="Get new recovery codes"
        question="Get new recovery codes? The codes you have now will stop working."
        confirmLabel="Get new codes"
        onConfirm={regenerate}
      />
    </section>
  );
}
