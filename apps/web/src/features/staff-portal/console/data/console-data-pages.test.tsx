import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeJwt, renderPortalPage, storeSession } from '../../../../lib/session/portal-test-kit.tsx';
import { factorsBody, fullSession, stepUpRefusal } from '../../common/second-factor-fixtures.ts';
import { AuditPage } from './audit-page.tsx';
import { ConsumersPage } from './consumers-page.tsx';

const api = '/api/console/v1';
const mailing = {
  mailing: 'spring-2030',
  links: 3,
  liveLinks: 3,
  revokedLinks: 0,
  issuedAt: '2030-01-02T10:00:00.000Z',
  expiresAt: '2030-03-01T00:00:00.000Z',
};
const csvFile = (text: string) => new File([text], 'consumers.csv', { type: 'text/csv' });

function auditRow(id: number, overrides: Record<string, unknown> = {}) {
  return {
    id,
    at: new Date(Date.UTC(2030, 0, 2, 10, 0, id)).toISOString(),
    event: 'consumer.sign-in',
    outcome: 'success',
    actor: 'consumer:17',
    customerId: 1001,
    ip: '198.51.100.7',
    detail: {},
    ...overrides,
  };
}

beforeEach(() => {
  window.sessionStorage.clear();
  storeSession('admin');
});

async function chooseOrganization(user: ReturnType<typeof userEvent.setup>) {
  await user.type(screen.getByLabelText('Customer id'), '1001');
  await user.click(screen.getByRole('button', { name: 'Show this organization' }));
}

describe('ConsumersPage', () => {
  it("lists a consumers file's problems by line, and says nothing was written", async () => {
    const user = userEvent.setup();
    const { sent } = renderPortalPage(<ConsumersPage />, {
      path: '/a/console/consumers',
      routes: {
        [`GET ${api}/organizations/1001/mailings`]: { status: 200, body: { mailings: [] } },
        [`POST ${api}/organizations/1001/consumers`]: {
          status: 400,
          body: {
            errorCode: 'InvalidImportFile',
            message: 'The file has 1 problem; nothing was written.',
            errors: [{ field: 'line 3, column 3 (email)', message: 'Enter a valid email address.' }],
          },
        },
      },
    });
    await chooseOrganization(user);
    expect(await screen.findByText('This organization has no mailings yet.')).toBeTruthy();
    const importForm = screen.getByRole('form', { name: 'Import consumers' });
    await user.upload(within(importForm).getByLabelText('CSV file'), csvFile('consumerId,name\nC-1,Ann\n'));
    await user.click(within(importForm).getByRole('button', { name: 'Import consumers' }));

    const alert = await within(importForm).findByRole('alert');
    expect(alert.textContent).toContain('The file has 1 problem; nothing was written.');
    expect(alert.textContent).toContain('line 3, column 3 (email): Enter a valid email address.');
    expect(sent.find((call) => call.route.startsWith('POST'))?.body).toBe('consumerId,name\nC-1,Ann\n');
  });

  it('asks for a file before it sends anything', async () => {
    const user = userEvent.setup();
    const { sent } = renderPortalPage(<ConsumersPage />, {
      path: '/a/console/consumers',
      routes: { [`GET ${api}/organizations/1001/mailings`]: { status: 200, body: { mailings: [] } } },
    });
    await chooseOrganization(user);
    const importForm = screen.getByRole('form', { name: 'Import consumers' });
    await user.click(within(importForm).getByRole('button', { name: 'Import consumers' }));
    expect((await within(importForm).findByRole('alert')).textContent).toContain('Choose a CSV file first.');
    expect(sent.filter((call) => call.route.startsWith('POST'))).toEqual([]);
  });

  it('revokes a mailing only after its confirmation, stepping up first when the server asks', async () => {
    const user = userEvent.setup();
    let revokes = 0;
    const { sent } = renderPortalPage(<ConsumersPage />, {
      path: '/a/console/consumers',
      routes: {
        [`GET ${api}/organizations/1001/mailings`]: () => ({
          status: 200,
          body: { mailings: [revokes > 1 ? { ...mailing, liveLinks: 0, revokedLinks: 3 } : mailing] },
        }),
        [`POST ${api}/mailings/spring-2030/revoke`]: () => {
          revokes += 1;
          return revokes === 1
            ? stepUpRefusal()
            : { status: 200, body: { mailing: 'spring-2030', revoked: 3 } };
        },
        'GET /api/auth/v1/admin/second-factors': {
          status: 200,
          body: factorsBody({ totp: { enrolled: true }, recoveryCodesLeft: 9 }),
        },
        'POST /api/auth/v1/admin/sign-in/second-factor': { status: 200, body: fullSession() },
      },
    });
    await chooseOrganization(user);
    const table = await screen.findByRole('table');
    expect(within(table).getByText('spring-2030')).toBeTruthy();
    await user.click(within(table).getByRole('button', { name: 'Revoke spring-2030' }));
    expect(screen.getByText(/Revoke every link of spring-2030\? 3 working links stop at once/)).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Cancel' }));
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(sent.filter((call) => call.route.includes('revoke'))).toEqual([]);

    await user.click(within(screen.getByRole('table')).getByRole('button', { name: 'Revoke spring-2030' }));
    await user.click(screen.getByRole('button', { name: 'Revoke the links' }));
    expect(await screen.findByRole('heading', { name: 'Confirm it is you' })).toBeTruthy();
    await user.click(await screen.findByRole('radio', { name: 'Use an authenticator app' }));
    await user.type(screen.getByLabelText('Authenticator code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Revoked 3 links of spring-2030.')).toBeTruthy();
    await waitFor(() =>
      expect(
        within(screen.getByRole('table')).queryByRole('button', { name: 'Revoke spring-2030' }),
      ).toBeNull(),
    );
  });
});

describe('AuditPage', () => {
  it('shows the newest rows, filters them, and pages older and back by cursor', async () => {
    const user = userEvent.setup();
    const { sent } = renderPortalPage(<AuditPage scope="admin" />, {
      path: '/a/console/audit',
      routes: {
        [`GET ${api}/audit`]: () => {
          const last = sent.at(-1)?.query ?? '';
          if (last.includes('cursor=page-2')) {
            return { status: 200, body: { rows: [auditRow(1, { outcome: 'failure' })], nextCursor: null } };
          }
          return {
            status: 200,
            body: { rows: [auditRow(3, { detail: { kind: 'Direct' } }), auditRow(2)], nextCursor: 'page-2' },
          };
        },
      },
    });
    const table = await screen.findByRole('table');
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(within(table).getByText('Details of row 3')).toBeTruthy();

    await user.type(screen.getByLabelText('Customer id'), '1001');
    await user.type(screen.getByLabelText(/Consumer id/), 'C-17');
    await user.selectOptions(screen.getByLabelText('Outcome'), 'success');
    await user.click(screen.getByRole('button', { name: 'Show the rows' }));
    await waitFor(() => expect(sent.at(-1)?.query).toBe('customerId=1001&consumerId=C-17&outcome=success'));

    await user.click(await screen.findByRole('button', { name: 'Older rows' }));
    expect(await within(screen.getByRole('table')).findByText('failure')).toBeTruthy();
    expect(sent.at(-1)?.query).toContain('cursor=page-2');
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Page 2, newest first.' }));
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Older rows' }).disabled).toBe(true);
    await user.click(screen.getByRole('button', { name: 'Newer rows' }));
    expect(await screen.findByText('Details of row 3')).toBeTruthy();
  });

  it("says when no row matches, and shows the server's reason for a refused filter", async () => {
    const user = userEvent.setup();
    renderPortalPage(<AuditPage scope="admin" />, {
      path: '/a/console/audit',
      routes: {
        [`GET ${api}/audit`]: () => ({ status: 200, body: { rows: [], nextCursor: null } }),
      },
    });
    expect(await screen.findByText('No audit rows match these filters.')).toBeTruthy();
    await user.type(screen.getByLabelText('Customer id'), 'abc');
    await user.click(screen.getByRole('button', { name: 'Show the rows' }));
    expect(await screen.findByText('A customer id is a whole number, such as 1001.')).toBeTruthy();
  });

  it("shows a manager their organization's rows without asking for an organization", async () => {
    // Only the customer portal's session: the page calls as the manager, not as an admin.
    window.sessionStorage.clear();
    const managerToken = fakeJwt({ user: { name: 'Mia Manager', context: { roleId: 2 } }, tid: 1001 });
    storeSession('customer', { accessToken: managerToken, accessType: 'Customer' });
    const user = userEvent.setup();
    const { sent, authorizations } = renderPortalPage(<AuditPage scope="customer" />, {
      path: '/d/console/audit',
      routes: {
        [`GET ${api}/audit`]: { status: 200, body: { rows: [auditRow(4)], nextCursor: null } },
      },
    });
    const table = await screen.findByRole('table');
    expect(within(table).getByText('consumer.sign-in')).toBeTruthy();
    expect(within(table).queryByRole('columnheader', { name: 'Customer' })).toBeNull();
    expect(screen.queryByLabelText('Customer id')).toBeNull();

    await user.type(screen.getByLabelText(/Consumer id/), 'C-17');
    await user.click(screen.getByRole('button', { name: 'Show the rows' }));
    await waitFor(() => expect(sent.at(-1)?.query).toBe('consumerId=C-17'));
    expect(authorizations).toEqual(sent.map(() => `Bearer ${managerToken}`));
  });
});
