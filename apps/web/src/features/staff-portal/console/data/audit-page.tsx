import type { AuditPageRead, AuditRowRead } from '@entry/client/console-data';
import { type AuditFilterQuery, auditOutcomes } from '@entry/domain';
import { useEffect, useId, useRef, useState } from 'react';
import { FormAlert, FormField } from '../../../../components/form-field.tsx';
import { LoadingState } from '../../../../components/loading-state.tsx';
import { useCheckedForm } from '../../../../lib/forms/use-checked-form.ts';
import { commonRefusalMessage, errorCodeOf } from '../../../../lib/session/sign-in-errors.ts';
import { CustomerIdField, customerIdCheck } from '../../common/customer-id-field.tsx';
import type { StaffScope } from '../../common/staff-scope.ts';
import { refusalTextOf, saveAsFile, useConsoleData } from './console-data-api.ts';
import './console-data.css';

const auditPageMessages = {
  title: 'Audit log',
  loading: 'Loading the audit log…',
  empty: 'No audit rows match these filters.',
  badTime: 'Enter a date and time.',
  pageOf: (page: number) => `Page ${page}, newest first.`,
} as const;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

interface FilterFields {
  customerId: string;
  actor: string;
  consumerId: string;
  ip: string;
  event: string;
  outcome: string;
  from: string;
  to: string;
}

const anyValue = () => null;
const filterChecks: Record<keyof FilterFields, (value: string) => string | null> = {
  customerId: (value) => (value.trim() === '' ? null : customerIdCheck(value)),
  actor: anyValue,
  consumerId: anyValue,
  ip: anyValue,
  event: anyValue,
  outcome: anyValue,
  from: anyValue,
  to: anyValue,
};

/** The query of the filled-in fields; a `datetime-local` value is the browser's local time. */
function queryOf(fields: FilterFields): AuditFilterQuery {
  const text = (value: string) => (value.trim() === '' ? undefined : value.trim());
  const instant = (value: string) => (value === '' ? undefined : new Date(value).toISOString());
  const outcome = auditOutcomes.find((known) => known === fields.outcome);
  return {
    customerId: fields.customerId.trim() === '' ? undefined : Number(fields.customerId.trim()),
    actor: text(fields.actor),
    consumerId: text(fields.consumerId),
    ip: text(fields.ip),
    event: text(fields.event),
    outcome,
    from: instant(fields.from),
    to: instant(fields.to),
  };
}

/** A manager's rows are all of their own organization: the table leaves that column out. */
function AuditTable({ rows, showsOrganization }: { rows: AuditRowRead[]; showsOrganization: boolean }) {
  return (
    <table className="console-table">
      <caption className="visually-hidden">Audit rows, newest first</caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Event</th>
          <th scope="col">Outcome</th>
          <th scope="col">Actor</th>
          {showsOrganization && <th scope="col">Customer</th>}
          <th scope="col">Address</th>
          <th scope="col">Details</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id}>
            <td data-label="Time">
              <time dateTime={row.at.toISOString()}>{dateFormat.format(row.at)}</time>
            </td>
            <td data-label="Event">{row.event}</td>
            <td data-label="Outcome">{row.outcome}</td>
            <td data-label="Actor">{row.actor ?? '-'}</td>
            {showsOrganization && <td data-label="Customer">{row.customerId ?? '-'}</td>}
            <td data-label="Address">{row.ip ?? '-'}</td>
            <td data-label="Details">
              {Object.keys(row.detail).length === 0 ? (
                <span className="console-muted">None</span>
              ) : (
                <details>
                  <summary>Details of row {row.id}</summary>
                  <pre>{JSON.stringify(row.detail, null, 2)}</pre>
                </details>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

type PageState =
  | { kind: 'idle' }
  | { kind: 'loading' }
  | { kind: 'loaded'; page: AuditPageRead }
  | { kind: 'failed'; message: string };

/**
 * `/a/console/audit` and `/d/console/audit`: the audit log filtered, newest first, a page at a time,
 * and its export. A manager's rows are their organization's alone, so they choose none.
 */
export function AuditPage({ scope }: { scope: StaffScope }) {
  const api = useConsoleData(scope);
  const admin = scope === 'admin';
  const [query, setQuery] = useState<AuditFilterQuery>({});
  // The cursors of the pages shown so far: the first page has none.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [state, setState] = useState<PageState>({ kind: 'idle' });
  const [exportRefusal, setExportRefusal] = useState<string | null>(null);
  const resultsRef = useRef<HTMLHeadingElement>(null);
  const resultsId = useId();
  const outcomeId = useId();
  const form = useCheckedForm(filterChecks, 'after-leaving');
  const cursor = cursors.at(-1);

  useEffect(() => {
    document.title = auditPageMessages.title;
  }, []);

  useEffect(() => {
    let active = true;
    setState({ kind: 'loading' });
    api
      .searchAudit({ ...query, ...(cursor === undefined ? {} : { cursor }) }, { explainedByPage: true })
      .then((page) => {
        if (active) setState({ kind: 'loaded', page });
      })
      .catch((error: unknown) => {
        if (!active) return;
        const own = errorCodeOf(error) === 'InvalidValue' ? refusalTextOf(error) : undefined;
        setState({ kind: 'failed', message: own ?? commonRefusalMessage(error) });
      });
    return () => {
      active = false;
    };
  }, [api, query, cursor]);

  const turnPage = (next: (string | undefined)[]) => {
    setCursors(next);
    resultsRef.current?.focus();
  };

  async function exportAs(format: 'csv' | 'jsonl') {
    setExportRefusal(null);
    try {
      const text = await api.exportAudit({ ...query, format }, { explainedByPage: true });
      saveAsFile(`audit.${format}`, text, format === 'csv' ? 'text/csv' : 'application/x-ndjson');
    } catch (error) {
      setExportRefusal(commonRefusalMessage(error));
    }
  }

  const optional = (name: keyof FilterFields, label: string, hint?: string) => (
    <FormField label={label} type="text" autoComplete="off" hint={hint} name={name} />
  );

  return (
    <section className="console-page" aria-labelledby="audit-title">
      <h2 id="audit-title" className="section-title">
        {auditPageMessages.title}
      </h2>
      <form
        noValidate
        aria-label="Filters"
        onChange={form.onChange}
        onBlur={form.onBlur}
        onSubmit={form.onSubmitWith(async (fields) => {
          setQuery(queryOf(fields));
          setCursors([undefined]);
        })}
      >
        <div className="console-filters">
          {admin && <CustomerIdField error={form.errors.customerId} />}
          {optional('actor', 'Actor', `As the log names them, such as ${admin ? 'admin:3' : 'customer:3'}`)}
          {optional(
            'consumerId',
            'Consumer id',
            admin ? "The organization's own id; needs the customer id" : undefined,
          )}
          {optional('ip', 'Address')}
          {optional('event', 'Event', 'Such as consumer.sign-in')}
          <div className="field">
            <label className="field__label" htmlFor={outcomeId}>
              Outcome
            </label>
            <select id={outcomeId} name="outcome" className="field__select">
              <option value="">Any</option>
              {auditOutcomes.map((outcome) => (
                <option key={outcome} value={outcome}>
                  {outcome}
                </option>
              ))}
            </select>
          </div>
          <FormField label="From" type="datetime-local" name="from" />
          <FormField label="Until (not included)" type="datetime-local" name="to" />
        </div>
        <div className="portal-actions">
          <button className="button" type="submit">
            Show the rows
          </button>
          <button className="button button--secondary" type="button" onClick={() => void exportAs('csv')}>
            Export as CSV
          </button>
          <button className="button button--secondary" type="button" onClick={() => void exportAs('jsonl')}>
            Export as JSON lines
          </button>
        </div>
      </form>
      {exportRefusal !== null && <FormAlert>{exportRefusal}</FormAlert>}
      <section className="console-section" aria-labelledby={resultsId}>
        <h2 id={resultsId} className="section-title" tabIndex={-1} ref={resultsRef}>
          {auditPageMessages.pageOf(cursors.length)}
        </h2>
        {state.kind === 'loading' && <LoadingState label={auditPageMessages.loading} />}
        {state.kind === 'failed' && <FormAlert>{state.message}</FormAlert>}
        {state.kind === 'loaded' &&
          (state.page.rows.length === 0 ? (
            <p className="console-muted">{auditPageMessages.empty}</p>
          ) : (
            <AuditTable rows={state.page.rows} showsOrganization={admin} />
          ))}
        <nav className="portal-actions" aria-label="Pages">
          <button
            type="button"
            className="button button--secondary"
            disabled={cursors.length === 1}
            onClick={() => turnPage(cursors.slice(0, -1))}
          >
            Newer rows
          </button>
          <button
            type="button"
            className="button button--secondary"
            disabled={state.kind !== 'loaded' || state.page.nextCursor === null}
            onClick={() => {
              if (state.kind === 'loaded' && state.page.nextCursor !== null) {
                turnPage([...cursors, state.page.nextCursor]);
              }
            }}
          >
            Older rows
          </button>
        </nav>
      </section>
    </section>
  );
}
