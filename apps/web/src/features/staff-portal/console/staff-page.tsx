import type {
  ConsoleOrganization,
  ConsoleStaffAction,
  ConsoleStaffKind,
  ConsoleStaffUser,
} from '@entry/domain';
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { FormAlert } from '../../../components/form-field.tsx';
import { LoadingState } from '../../../components/loading-state.tsx';
import { Confirm } from '../common/confirm.tsx';
import type { StaffScope } from '../common/staff-scope.ts';
import { useStepUp } from '../common/step-up.tsx';
import { SearchField } from './search-field.tsx';
import { consoleRefusalMessage, consoleTime, useConsoleApi } from './use-console-api.ts';
import { useConsoleList } from './use-console-list.ts';

const staffMessages = {
  loading: 'Loading the staff',
  empty: 'No staff user matches.',
  invited: (username: string) => `Invited ${username}: a mail with a link to set a password is on its way.`,
  done: {
    disable: (username: string) => `Disabled ${username}; their sessions have ended.`,
    enable: (username: string) => `Enabled ${username}.`,
    unlock: (username: string) => `Unlocked ${username}.`,
    'reset-second-factors': (username: string) =>
      `Removed the second factors of ${username}; they are mailed and set one up at their next sign-in.`,
    'resend-invitation': (username: string) => `Sent ${username} a new invitation.`,
  } satisfies Record<ConsoleStaffAction, (username: string) => string>,
  manager: (username: string, manager: boolean) =>
    manager ? `${username} is now a manager.` : `${username} is no longer a manager.`,
} as const;

/** The actions asked about first: they end sessions or remove what the user set up. */
const confirmations: Partial<
  Record<ConsoleStaffAction, { question: (name: string) => string; label: string }>
> = {
  disable: { question: (name) => `Disable ${name}? Their open sessions end.`, label: 'Disable' },
  'reset-second-factors': {
    question: (name) => `Remove every second factor of ${name}? Their open sessions end.`,
    label: 'Remove second factors',
  },
};

function statusOf(user: ConsoleStaffUser): string {
  if (user.disabled) return 'Disabled';
  if (user.lockedUntil !== null) return `Locked until ${consoleTime(user.lockedUntil, '')}`;
  if (user.invitationPending) return 'Invited';
  return 'Active';
}

function factorsOf(user: ConsoleStaffUser): string {
  const parts = [
    ...(user.authenticatorApp ? ['authenticator app'] : []),
    ...(user.passkeys > 0 ? [`${user.passkeys} passkey${user.passkeys === 1 ? '' : 's'}`] : []),
  ];
  return parts.length === 0 ? 'None' : parts.join(', ');
}

function actionsOf(user: ConsoleStaffUser): { action: ConsoleStaffAction; label: string }[] {
  return [
    ...(user.lockedUntil === null ? [] : [{ action: 'unlock' as const, label: 'Unlock' }]),
    user.disabled
      ? { action: 'enable' as const, label: 'Enable' }
      : { action: 'disable' as const, label: 'Disable' },
    ...(user.authenticatorApp || user.passkeys > 0
      ? [{ action: 'reset-second-factors' as const, label: 'Reset second factors' }]
      : []),
    ...(user.invitationPending ? [{ action: 'resend-invitation' as const, label: 'Resend invitation' }] : []),
  ];
}

function useOrganizations(scope: StaffScope): ConsoleOrganization[] {
  const api = useConsoleApi(scope);
  const [organizations, setOrganizations] = useState<ConsoleOrganization[]>([]);
  useEffect(() => {
    if (scope !== 'admin') return;
    let active = true;
    api
      .organizations(undefined, { explainedByPage: true })
      .then((list) => active && setOrganizations(list))
      .catch(() => {
        // The filter offers every organization only when they load; the list still works without it.
      });
    return () => {
      active = false;
    };
  }, [api, scope]);
  return organizations;
}

function InviteForm({
  scope,
  organizations,
  onSubmit,
  onCancel,
}: {
  scope: StaffScope;
  organizations: ConsoleOrganization[];
  onSubmit: (form: FormData) => Promise<void>;
  onCancel: () => void;
}) {
  const [kind, setKind] = useState<ConsoleStaffKind>('customer');
  const [busy, setBusy] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      await onSubmit(new FormData(event.currentTarget));
    } finally {
      setBusy(false);
    }
  }
  const field = (label: string, name: string, type = 'text', required = true) => (
    <div className="field">
      <label className="field__label" htmlFor={`invite-${name}`}>
        {label}
      </label>
      <div className="field__control">
        <input id={`invite-${name}`} name={name} className="field__input" type={type} required={required} />
      </div>
    </div>
  );
  return (
    <form className="console-panel" onSubmit={submit} aria-label="Invite a staff user">
      <h2 className="section-title">Invite a staff user</h2>
      {scope === 'admin' && (
        <div className="field">
          <label className="field__label" htmlFor="invite-kind">
            Kind
          </label>
          <select
            id="invite-kind"
            name="kind"
            className="console-select"
            value={kind}
            onChange={(event) => setKind(event.currentTarget.value as ConsoleStaffKind)}
          >
            <option value="customer">Customer user (an organization's staff)</option>
            <option value="admin">Admin</option>
          </select>
        </div>
      )}
      {scope === 'admin' && kind === 'customer' && (
        <div className="field">
          <label className="field__label" htmlFor="invite-organization">
            Organization
          </label>
          <select id="invite-organization" name="customerId" className="console-select" required>
            {organizations.map((organization) => (
              <option key={organization.customerId} value={organization.customerId}>
                {organization.name}
              </option>
            ))}
          </select>
        </div>
      )}
      {field('Username', 'username')}
      {field('E-mail address', 'email', 'email')}
      {field('Display name', 'displayName', 'text', false)}
      {scope === 'admin' && kind === 'customer' && (
        <div className="field">
          <label>
            <input type="checkbox" name="manager" /> Manager: looks after the staff of the organization
          </label>
        </div>
      )}
      <div className="portal-actions">
        <button type="submit" className="button" disabled={busy}>
          Send the invitation
        </button>
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** `/a/console/staff` and `/d/console/staff`: staff users, their status, invitations and account actions. */
export function StaffPage({ scope }: { scope: StaffScope }) {
  const api = useConsoleApi(scope);
  const organizations = useOrganizations(scope);
  const { withStepUp, prompt } = useStepUp(scope);
  const [search, setSearch] = useState('');
  const [customerId, setCustomerId] = useState('');
  const load = useCallback(
    () =>
      api.staff(
        { search, ...(customerId === '' ? {} : { customerId: Number(customerId) }) },
        { explainedByPage: true },
      ),
    [api, search, customerId],
  );
  const { state, reload } = useConsoleList(load);
  const [inviting, setInviting] = useState(false);
  const [asking, setAsking] = useState<{ user: ConsoleStaffUser; action: ConsoleStaffAction } | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const organizationName = (id: number | null) =>
    id === null
      ? 'Admin'
      : (organizations.find((organization) => organization.customerId === id)?.name ?? `Customer ${id}`);

  async function run(action: () => Promise<string>) {
    setRefusal(null);
    setDone(null);
    try {
      const outcome = await withStepUp(action);
      if (outcome.done) {
        setDone(outcome.value);
        setInviting(false);
        reload();
      }
    } catch (error) {
      setRefusal(consoleRefusalMessage(error));
    }
  }

  const act = (user: ConsoleStaffUser, action: ConsoleStaffAction) =>
    run(async () => {
      await api.act(user.id, action, { explainedByPage: true });
      return staffMessages.done[action](user.username);
    });

  function ask(user: ConsoleStaffUser, action: ConsoleStaffAction) {
    if (confirmations[action] === undefined) void act(user, action);
    else setAsking({ user, action });
  }

  const invite = (form: FormData) =>
    run(async () => {
      const value = (name: string) => {
        const entry = form.get(name);
        return typeof entry === 'string' ? entry : '';
      };
      const kind: ConsoleStaffKind = scope === 'admin' && value('kind') === 'admin' ? 'admin' : 'customer';
      const invited = await api.invite(
        {
          kind,
          ...(scope === 'admin' && kind === 'customer' ? { customerId: Number(value('customerId')) } : {}),
          username: value('username'),
          email: value('email'),
          ...(value('displayName').trim() === '' ? {} : { displayName: value('displayName') }),
          ...(form.get('manager') === 'on' ? { manager: true } : {}),
        },
        { explainedByPage: true },
      );
      return staffMessages.invited(invited.username);
    });

  const setManager = (user: ConsoleStaffUser) =>
    run(async () => {
      await api.setManager(user.id, !user.manager, { explainedByPage: true });
      return staffMessages.manager(user.username, !user.manager);
    });

  const confirmation = asking === null ? undefined : confirmations[asking.action];
  return (
    <>
      <h2 className="section-title">Staff</h2>
      {prompt}
      <div hidden={prompt !== null}>
        {refusal !== null && <FormAlert>{refusal}</FormAlert>}
        <p role="status">{done}</p>
        {asking !== null && confirmation !== undefined && (
          <Confirm
            question={confirmation.question(asking.user.username)}
            confirmLabel={confirmation.label}
            busy={false}
            onConfirm={() => {
              setAsking(null);
              void act(asking.user, asking.action);
            }}
            onCancel={() => setAsking(null)}
          />
        )}
        {inviting ? (
          <InviteForm
            scope={scope}
            organizations={organizations}
            onSubmit={invite}
            onCancel={() => setInviting(false)}
          />
        ) : (
          <div className="console-toolbar">
            <SearchField
              id="staff-search"
              label="Search by username, name or e-mail"
              value={search}
              onChange={setSearch}
            />
            {scope === 'admin' && (
              <div className="field">
                <label className="field__label" htmlFor="staff-organization">
                  Organization
                </label>
                <select
                  id="staff-organization"
                  className="console-select"
                  value={customerId}
                  onChange={(event) => setCustomerId(event.currentTarget.value)}
                >
                  <option value="">All, with admins</option>
                  {organizations.map((organization) => (
                    <option key={organization.customerId} value={organization.customerId}>
                      {organization.name}
                    </option>
                  ))}
                </select>
              </div>
            )}
            <button type="button" className="button" onClick={() => setInviting(true)}>
              Invite
            </button>
          </div>
        )}
        {state.status === 'loading' && <LoadingState label={staffMessages.loading} />}
        {state.status === 'failed' && <FormAlert>{state.message}</FormAlert>}
        {state.status === 'ready' && state.items.length === 0 && <p>{staffMessages.empty}</p>}
        {state.status === 'ready' && state.items.length > 0 && (
          <table className="console-table">
            <caption className="visually-hidden">Staff users</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Organization</th>
                <th scope="col">Status</th>
                <th scope="col">Second factors</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {state.items.map((user) => (
                <tr key={user.id}>
                  <td data-label="User">
                    {user.displayName}
                    <span className="console-muted">
                      {user.username} · {user.email}
                      {user.manager ? ' · manager' : ''}
                    </span>
                  </td>
                  <td data-label="Organization">{organizationName(user.customerId)}</td>
                  <td data-label="Status">{statusOf(user)}</td>
                  <td data-label="Second factors">{factorsOf(user)}</td>
                  <td data-label="Last sign-in">{consoleTime(user.lastSignInAt, 'Never')}</td>
                  <td>
                    {actionsOf(user).map(({ action, label }) => (
                      <button
                        key={action}
                        type="button"
                        className="button button--secondary"
                        aria-label={`${label}: ${user.username}`}
                        onClick={() => ask(user, action)}
                      >
                        {label}
                      </button>
                    ))}
                    {scope === 'admin' && user.kind === 'customer' && (
                      <button
                        type="button"
                        className="button button--secondary"
                        aria-label={`${user.manager ? 'Remove manager role' : 'Make manager'}: ${user.username}`}
                        onClick={() => void setManager(user)}
                      >
                        {user.manager ? 'Remove manager role' : 'Make manager'}
                      </button>
                    )}
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
