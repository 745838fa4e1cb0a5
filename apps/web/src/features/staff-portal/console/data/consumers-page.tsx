import type { MailingSummaryRead } from '@entry/client/console-data';
import { useCallback, useEffect, useId, useState } from 'react';
import { FormAlert } from '../../../../components/form-field.tsx';
import { LoadingState } from '../../../../components/loading-state.tsx';
import { commonRefusalMessage, errorCodeOf } from '../../../../lib/session/sign-in-errors.ts';
import { Confirm } from '../../common/confirm.tsx';
import { customerIdMessages } from '../../common/customer-id-field.tsx';
import { useStepUp } from '../../common/step-up.tsx';
import { saveAsFile, useConsoleData } from './console-data-api.ts';
import { CsvUploadForm } from './csv-upload-form.tsx';
import { OrganizationForm } from './organization-form.tsx';
import './console-data.css';

const consumersPageMessages = {
  title: 'Consumers and mailings',
  imported: (rows: number, created: number, updated: number) =>
    `Imported ${rows} consumers: ${created} new, ${updated} updated.`,
  issued: (mailing: string) => `The links of ${mailing} are issued; the letter-links CSV is downloading.`,
  loadingMailings: 'Loading the mailings…',
  noMailings: 'This organization has no mailings yet.',
  revokeQuestion: (mailing: string, live: number) =>
    `Revoke every link of ${mailing}? ${live} working links stop at once, and the sessions they opened end.`,
  revoked: (mailing: string, revoked: number) => `Revoked ${revoked} links of ${mailing}.`,
} as const;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

type MailingsState =
  | { kind: 'loading' }
  | { kind: 'loaded'; mailings: MailingSummaryRead[] }
  | { kind: 'failed'; message: string };

function useMailings(customerId: number) {
  const api = useConsoleData('admin');
  const [state, setState] = useState<MailingsState>({ kind: 'loading' });
  const load = useCallback(() => {
    setState({ kind: 'loading' });
    api
      .mailings(customerId, { explainedByPage: true })
      .then((mailings) => setState({ kind: 'loaded', mailings }))
      .catch((error: unknown) =>
        setState({
          kind: 'failed',
          message:
            errorCodeOf(error) === 'ItemNotFound'
              ? customerIdMessages.noSuchCustomer
              : commonRefusalMessage(error),
        }),
      );
  }, [api, customerId]);
  useEffect(load, [load]);
  return { state, reload: load };
}

function MailingsTable({
  mailings,
  onRevoke,
}: {
  mailings: MailingSummaryRead[];
  onRevoke: (mailing: MailingSummaryRead) => void;
}) {
  const captionId = useId();
  if (mailings.length === 0) return <p className="console-muted">{consumersPageMessages.noMailings}</p>;
  return (
    <table className="console-table" aria-labelledby={captionId}>
      <caption id={captionId} className="visually-hidden">
        Mailings, newest first
      </caption>
      <thead>
        <tr>
          <th scope="col">Mailing</th>
          <th scope="col">Issued</th>
          <th scope="col">Links</th>
          <th scope="col">Working</th>
          <th scope="col">Revoked</th>
          <th scope="col">
            <span className="visually-hidden">Action</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {mailings.map((mailing) => (
          <tr key={mailing.mailing}>
            <td data-label="Mailing">{mailing.mailing}</td>
            <td data-label="Issued">{dateFormat.format(mailing.issuedAt)}</td>
            <td data-label="Links">{mailing.links}</td>
            <td data-label="Working">{mailing.liveLinks}</td>
            <td data-label="Revoked">{mailing.revokedLinks}</td>
            <td data-label="">
              {mailing.liveLinks > 0 && (
                <button
                  type="button"
                  className="button button--secondary"
                  aria-label={`Revoke ${mailing.mailing}`}
                  onClick={() => onRevoke(mailing)}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One organization's consumers import, mailing upload and mailings. */
function OrganizationData({ customerId }: { customerId: number }) {
  const api = useConsoleData('admin');
  // Every change needs a second factor used lately: the page asks for one, then goes on.
  const { withStepUp, prompt } = useStepUp('admin');
  const { state, reload } = useMailings(customerId);
  const [mailingName, setMailingName] = useState('');
  const [revoking, setRevoking] = useState<MailingSummaryRead | null>(null);
  const [busy, setBusy] = useState(false);
  const [revokeNote, setRevokeNote] = useState<{ text: string; failed: boolean } | null>(null);
  const mailingFieldId = useId();

  async function revoke(mailing: MailingSummaryRead) {
    setBusy(true);
    setRevokeNote(null);
    try {
      const outcome = await withStepUp(() => api.revokeMailing(mailing.mailing, { explainedByPage: true }));
      if (outcome.done) {
        setRevokeNote({
          text: consumersPageMessages.revoked(mailing.mailing, outcome.value.revoked),
          failed: false,
        });
        reload();
      }
    } catch (error) {
      setRevokeNote({ text: commonRefusalMessage(error), failed: true });
    } finally {
      setBusy(false);
      setRevoking(null);
    }
  }

  return (
    <>
      {prompt}
      <div hidden={prompt !== null}>
        <CsvUploadForm
          title="Import consumers"
          hint="Header consumerId,name,email,last4Ssn,postalCode,dateOfBirth (YYYY-MM-DD), and optionally language. Nothing is written unless every row is valid."
          submitLabel="Import consumers"
          onUpload={async (csv) => {
            const outcome = await withStepUp(() =>
              api.importConsumers(customerId, csv, { explainedByPage: true }),
            );
            if (!outcome.done) return null;
            const { rows, created, updated } = outcome.value;
            return consumersPageMessages.imported(rows, created, updated);
          }}
        />
        <CsvUploadForm
          title="Issue a mailing's links"
          hint="Header consumerId,signInType,target,targetId,expiresAt, and optionally the payment columns. The answer is the letter-links CSV."
          submitLabel="Issue the links"
          extraFields={
            <div className="field">
              <label className="field__label" htmlFor={mailingFieldId}>
                Mailing name (optional)
              </label>
              <input
                id={mailingFieldId}
                className="field__input"
                type="text"
                autoComplete="off"
                value={mailingName}
                onChange={(event) => setMailingName(event.target.value)}
              />
            </div>
          }
          onUpload={async (csv) => {
            const name = mailingName.trim() === '' ? undefined : mailingName.trim();
            const outcome = await withStepUp(() =>
              api.issueMailing(customerId, csv, name, { explainedByPage: true }),
            );
            if (!outcome.done) return null;
            const issuedName = name ?? 'the mailing';
            saveAsFile(`${name ?? 'mailing'}-links.csv`, outcome.value, 'text/csv');
            reload();
            return consumersPageMessages.issued(issuedName);
          }}
        />
        <section className="console-section" aria-labelledby="mailings-title">
          <h2 id="mailings-title" className="section-title">
            Mailings
          </h2>
          {revokeNote !== null &&
            (revokeNote.failed ? (
              <FormAlert>{revokeNote.text}</FormAlert>
            ) : (
              <p className="notice" role="status">
                {revokeNote.text}
              </p>
            ))}
          {revoking !== null && (
            <Confirm
              question={consumersPageMessages.revokeQuestion(revoking.mailing, revoking.liveLinks)}
              confirmLabel="Revoke the links"
              busy={busy}
              onConfirm={() => void revoke(revoking)}
              onCancel={() => setRevoking(null)}
            />
          )}
          {state.kind === 'loading' && <LoadingState label={consumersPageMessages.loadingMailings} />}
          {state.kind === 'failed' && <FormAlert>{state.message}</FormAlert>}
          {state.kind === 'loaded' && <MailingsTable mailings={state.mailings} onRevoke={setRevoking} />}
        </section>
      </div>
    </>
  );
}

/** `/a/console/consumers`: an organization's consumers CSV, its mailings' links, and their revocation. */
export function ConsumersPage() {
  const [customerId, setCustomerId] = useState<number | null>(null);
  useEffect(() => {
    document.title = consumersPageMessages.title;
  }, []);
  return (
    <section className="console-page" aria-labelledby="consumers-title">
      <h2 id="consumers-title" className="section-title">
        {consumersPageMessages.title}
      </h2>
      <OrganizationForm onChoose={setCustomerId} />
      {customerId !== null && <OrganizationData key={customerId} customerId={customerId} />}
    </section>
  );
}
