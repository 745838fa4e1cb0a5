import type { ConsoleOrganization, StaffSecondFactorPolicy } from '@entry/domain';
import { staffSecondFactorPolicies } from '@entry/domain';
import { type FormEvent, useCallback, useState } from 'react';
import { useNavigate } from 'react-router';
import { FormAlert } from '../../../components/form-field.tsx';
import { LoadingState } from '../../../components/loading-state.tsx';
import { paths } from '../../../config/paths.ts';
import { usePortalApi } from '../../../lib/session/portal-api.ts';
import type { StaffScope } from '../common/staff-scope.ts';
import { useStepUp } from '../common/step-up.tsx';
import { SearchField } from './search-field.tsx';
import { consoleRefusalMessage, useConsoleApi } from './use-console-api.ts';
import { useConsoleList } from './use-console-list.ts';

const organizationsMessages = {
  loading: 'Loading the organizations',
  empty: 'No organization matches.',
  created: (name: string) => `Created ${name}.`,
  saved: (name: string) => `Saved ${name}.`,
  logoTooLarge: 'The logo must be a PNG or SVG file of at most 64 KB.',
} as const;

const policyLabels: Record<StaffSecondFactorPolicy, string> = {
  off: 'Off',
  optional: 'Optional',
  required: 'Required',
};

/** A labelled text field of the console's forms, read on submission. */
function TextField({
  label,
  name,
  defaultValue,
  type = 'text',
  required = false,
  hint,
}: {
  label: string;
  name: string;
  defaultValue?: string | undefined;
  type?: string;
  required?: boolean;
  hint?: string;
}) {
  const id = `organization-${name}`;
  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      {hint !== undefined && (
        <p className="field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <div className="field__control">
        <input
          id={id}
          name={name}
          className="field__input"
          type={type}
          defaultValue={defaultValue}
          required={required}
          aria-describedby={hint === undefined ? undefined : `${id}-hint`}
        />
      </div>
    </div>
  );
}

function text(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === 'string' ? value : '';
}

function passwordAge(form: FormData): number | null {
  const value = text(form, 'maxPasswordAgeDays').trim();
  return value === '' ? null : Number(value);
}

async function fileAsBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const maxLogoBytes = 64 * 1024;

function OrganizationForm({
  organization,
  onSubmit,
  onCancel,
}: {
  organization: ConsoleOrganization | null;
  onSubmit: (form: FormData, logo: string | null | undefined) => Promise<void>;
  onCancel: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [logo, setLogo] = useState<{ base64: string; preview: string } | null | undefined>(undefined);
  const [logoProblem, setLogoProblem] = useState<string | null>(null);
  const editing = organization !== null;

  async function chooseLogo(file: File | undefined) {
    setLogoProblem(null);
    if (file === undefined) return setLogo(undefined);
    if (file.size > maxLogoBytes || !['image/png', 'image/svg+xml'].includes(file.type)) {
      setLogo(undefined);
      return setLogoProblem(organizationsMessages.logoTooLarge);
    }
    const base64 = await fileAsBase64(file);
    setLogo({ base64, preview: `data:${file.type};base64,${base64}` });
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      await onSubmit(new FormData(event.currentTarget), logo === null ? null : logo?.base64);
    } finally {
      setBusy(false);
    }
  }

  const title = editing ? `Edit ${organization.name}` : 'New organization';
  return (
    <form className="console-panel" onSubmit={submit} aria-label={title}>
      <h2 className="section-title">{title}</h2>
      {editing ? (
        <p>
          Consumer portal: <a href={organization.consumerPortalUrl}>{organization.consumerPortalUrl}</a>
        </p>
      ) : (
        <TextField
          label="Subdomain"
          name="subdomain"
          required
          hint="Lowercase letters, digits and hyphens."
        />
      )}
      <TextField label="Name" name="name" defaultValue={organization?.name} required />
      {editing && (
        <>
          <TextField
            label="Contact phone"
            name="phone"
            defaultValue={organization.contact.phone ?? ''}
            type="tel"
          />
          <TextField
            label="Contact e-mail"
            name="email"
            defaultValue={organization.contact.email ?? ''}
            type="email"
          />
          <TextField label="Opening hours" name="hours" defaultValue={organization.contact.hours ?? ''} />
          <TextField
            label="Website"
            name="website"
            defaultValue={organization.contact.website ?? ''}
            type="url"
          />
          <div className="field">
            <label className="field__label" htmlFor="organization-logo">
              Logo (PNG or SVG, at most 64 KB)
            </label>
            <input
              id="organization-logo"
              type="file"
              accept="image/png,image/svg+xml"
              onChange={(event) => void chooseLogo(event.currentTarget.files?.[0])}
            />
            {logoProblem !== null && <FormAlert>{logoProblem}</FormAlert>}
            {logo !== undefined && logo !== null && (
              <img className="console-logo-preview" src={logo.preview} alt="Preview of the new logo" />
            )}
            {organization.hasLogo && (
              <label>
                <input
                  type="checkbox"
                  checked={logo === null}
                  onChange={(event) => setLogo(event.currentTarget.checked ? null : undefined)}
                />{' '}
                Remove the logo
              </label>
            )}
          </div>
          <div className="field">
            <label className="field__label" htmlFor="organization-staff-second-factor">
              Second factor for its staff
            </label>
            <select
              id="organization-staff-second-factor"
              name="staffSecondFactor"
              className="console-select"
              defaultValue={organization.staffSecondFactor}
            >
              {staffSecondFactorPolicies.map((policy) => (
                <option key={policy} value={policy}>
                  {policyLabels[policy]}
                </option>
              ))}
            </select>
          </div>
        </>
      )}
      <div className="field">
        <label>
          <input
            type="checkbox"
            name="consumerMfaRequired"
            defaultChecked={organization?.consumerMfaRequired ?? true}
          />{' '}
          Consumers confirm a one-time code after verification
        </label>
      </div>
      <TextField
        label="Staff password age in days"
        name="maxPasswordAgeDays"
        type="number"
        defaultValue={organization?.maxPasswordAgeDays?.toString() ?? ''}
        hint="Empty: passwords do not expire."
      />
      <div className="portal-actions">
        <button type="submit" className="button" disabled={busy}>
          {editing ? 'Save' : 'Create'}
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** `/a/console/organizations`: every organization, its creation and its details; admins only. */
export function OrganizationsPage({ scope }: { scope: StaffScope }) {
  const api = useConsoleApi(scope);
  const launch = usePortalApi('admin').launch;
  const navigate = useNavigate();
  const { withStepUp, prompt } = useStepUp(scope);
  const [search, setSearch] = useState('');
  const load = useCallback(() => api.organizations(search, { explainedByPage: true }), [api, search]);
  const { state, reload } = useConsoleList(load);
  const [editing, setEditing] = useState<ConsoleOrganization | 'new' | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  async function run(action: () => Promise<string | undefined>) {
    setRefusal(null);
    setDone(null);
    try {
      const outcome = await withStepUp(action);
      if (outcome.done && outcome.value !== undefined) {
        setDone(outcome.value);
        setEditing(null);
        reload();
      }
    } catch (error) {
      setRefusal(consoleRefusalMessage(error));
    }
  }

  const save = (form: FormData, logo: string | null | undefined) =>
    run(async () => {
      if (editing === 'new') {
        const created = await api.createOrganization(
          {
            subdomain: text(form, 'subdomain'),
            name: text(form, 'name'),
            consumerMfaRequired: form.get('consumerMfaRequired') === 'on',
            maxPasswordAgeDays: passwordAge(form),
          },
          { explainedByPage: true },
        );
        return organizationsMessages.created(created.name);
      }
      if (editing === null) return undefined;
      const saved = await api.updateOrganization(
        editing.customerId,
        {
          name: text(form, 'name'),
          phone: text(form, 'phone'),
          email: text(form, 'email'),
          hours: text(form, 'hours'),
          website: text(form, 'website'),
          consumerMfaRequired: form.get('consumerMfaRequired') === 'on',
          staffSecondFactor: text(form, 'staffSecondFactor') as StaffSecondFactorPolicy,
          maxPasswordAgeDays: passwordAge(form),
          ...(logo === undefined ? {} : { logoBase64: logo }),
        },
        { explainedByPage: true },
      );
      return organizationsMessages.saved(saved.name);
    });

  const launchInto = (organization: ConsoleOrganization) =>
    run(async () => {
      const { token } = await launch.customer(organization.customerId, { explainedByPage: true });
      navigate(paths.customerPortal.launch.href(token));
      return undefined;
    });

  return (
    <>
      <h2 className="section-title">Organizations</h2>
      {prompt}
      <div hidden={prompt !== null}>
        {refusal !== null && <FormAlert>{refusal}</FormAlert>}
        <p role="status">{done}</p>
        {editing === null ? (
          <div className="console-toolbar">
            <SearchField
              id="organization-search"
              label="Search by name, subdomain or customer id"
              value={search}
              onChange={setSearch}
            />
            <button type="button" className="button" onClick={() => setEditing('new')}>
              New organization
            </button>
          </div>
        ) : (
          <OrganizationForm
            key={editing === 'new' ? 'new' : editing.customerId}
            organization={editing === 'new' ? null : editing}
            onSubmit={save}
            onCancel={() => setEditing(null)}
          />
        )}
        {state.status === 'loading' && <LoadingState label={organizationsMessages.loading} />}
        {state.status === 'failed' && <FormAlert>{state.message}</FormAlert>}
        {state.status === 'ready' && state.items.length === 0 && <p>{organizationsMessages.empty}</p>}
        {state.status === 'ready' && state.items.length > 0 && (
          <table className="console-table">
            <caption className="visually-hidden">Organizations</caption>
            <thead>
              <tr>
                <th scope="col">Organization</th>
                <th scope="col">Consumers</th>
                <th scope="col">Staff</th>
                <th scope="col">Staff second factor</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {state.items.map((organization) => (
                <tr key={organization.customerId}>
                  <td data-label="Organization">
                    {organization.name}
                    <span className="console-muted">
                      {organization.subdomain} · customer id {organization.customerId}
                    </span>
                  </td>
                  <td data-label="Consumers">{organization.consumerCount}</td>
                  <td data-label="Staff">{organization.staffCount}</td>
                  <td data-label="Staff second factor">{policyLabels[organization.staffSecondFactor]}</td>
                  <td>
                    <button
                      type="button"
                      className="button button--secondary"
                      aria-label={`Edit ${organization.name}`}
                      onClick={() => setEditing(organization)}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      className="button button--secondary"
                      aria-label={`Open the customer portal of ${organization.name}`}
                      onClick={() => void launchInto(organization)}
                    >
                      Open its portal
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </>
  );
}
