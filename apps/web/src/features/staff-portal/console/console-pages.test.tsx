import type { ConsoleOrganization, ConsoleStaffUser } from '@entry/domain';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderPortalPage, storeSession } from '../../../lib/session/portal-test-kit.tsx';
import { factorsBody, stepUpRefusal } from '../common/second-factor-fixtures.ts';
import { ConsoleLayout } from './console-layout.tsx';
import { OrganizationsPage } from './organizations-page.tsx';
import { StaffPage } from './staff-page.tsx';

const base = '/api/console/v1';

function staffUser(overrides: Partial<ConsoleStaffUser> = {}): ConsoleStaffUser {
  return {
    id: 7,
    kind: 'customer',
    customerId: 1001,
    username: 'colleague.one',
    email: 'colleague.one@example.com',
    displayName: 'Colleague One',
    manager: false,
    disabled: false,
    lockedUntil: null,
    authenticatorApp: true,
    passkeys: 0,
    lastSignInAt: null,
    invitationPending: false,
    createdAt: '2026-11-01T10:00:00.000Z',
    ...overrides,
  };
}

const organization: ConsoleOrganization = {
  customerId: 1001,
  subdomain: 'sender',
  name: 'Sender Inc.',
  contact: { phone: null, email: null, hours: null, website: null },
  hasLogo: false,
  consumerMfaRequired: true,
  staffSecondFactor: 'optional',
  maxPasswordAgeDays: null,
  consumerCount: 12,
  staffCount: 3,
  consumerPortalUrl: 'http://sender.localhost:8080/c/',
  createdAt: '2026-11-01T10:00:00.000Z',
};

describe('the console', () => {
  it('tells a customer user who is not a manager why the console is empty', async () => {
    storeSession('customer', { accessType: 'Customer' });
    renderPortalPage(<ConsoleLayout scope="customer" />, {
      path: '/d/console',
      pattern: '/d/console',
      routes: {
        [`GET ${base}/access`]: { status: 200, body: { kind: 'customer', manager: false, console: false } },
      },
    });
    expect(await screen.findByText(/The console is for admins and for managers/)).toBeTruthy();
    expect(screen.queryByRole('navigation')).toBeNull();
  });

  it('shows a manager the Staff and Audit log sections, and an admin every section', async () => {
    storeSession('customer', { accessType: 'Customer' });
    const manager = renderPortalPage(<ConsoleLayout scope="customer" />, {
      path: '/d/console/staff',
      pattern: '/d/:section/:rest/*',
      routes: {
        [`GET ${base}/access`]: { status: 200, body: { kind: 'customer', manager: true, console: true } },
        [`GET ${base}/staff`]: { status: 200, body: { users: [] } },
      },
    });
    const nav = await screen.findByRole('navigation', { name: 'Console sections' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Staff', 'Audit log']);
    expect(within(nav).getByRole('link', { name: 'Audit log' }).getAttribute('href')).toBe(
      '/d/console/audit',
    );
    manager.unmount();

    storeSession('admin');
    renderPortalPage(<ConsoleLayout scope="admin" />, {
      path: '/a/console/organizations',
      pattern: '/a/:section/:rest/*',
      routes: {
        [`GET ${base}/access`]: { status: 200, body: { kind: 'admin', manager: false, console: true } },
        [`GET ${base}/organizations`]: { status: 200, body: { organizations: [organization] } },
      },
    });
    const adminNav = await screen.findByRole('navigation', { name: 'Console sections' });
    expect(
      within(adminNav)
        .getAllByRole('link')
        .map((link) => link.textContent),
    ).toEqual(['Organizations', 'Staff', 'Consumers and mailings', 'Audit log']);
  });
});

describe('StaffPage', () => {
  it('lists the users with their status and unlocks a locked one', async () => {
    storeSession('customer', { accessType: 'Customer' });
    const locked = staffUser({ lockedUntil: '2030-01-01T10:00:00.000Z' });
    let users = [locked];
    const { sent } = renderPortalPage(<StaffPage scope="customer" />, {
      path: '/d/console/staff',
      routes: {
        [`GET ${base}/staff`]: () => ({ status: 200, body: { users } }),
        [`POST ${base}/staff/7/unlock`]: () => {
          users = [staffUser()];
          return { status: 200, body: users[0] };
        },
      },
    });
    const row = (await screen.findByText('Colleague One')).closest('tr') as HTMLElement;
    expect(within(row).getByText(/^Locked until/)).toBeTruthy();
    expect(within(row).getByText('authenticator app')).toBeTruthy();
    expect(within(row).getByText('Never')).toBeTruthy();
    await userEvent.click(within(row).getByRole('button', { name: 'Unlock: colleague.one' }));
    expect((await screen.findByRole('status', { name: '' })).textContent).toBe('Unlocked colleague.one.');
    expect(await screen.findByText('Active')).toBeTruthy();
    expect(sent.map((call) => call.route)).toContain(`POST ${base}/staff/7/unlock`);
  });

  it.each([
    {
      policy: 'optional',
      says: 'This change needs a second factor, and you have none yet. Set one up on your security page, then try again.',
      link: true,
    },
    {
      policy: 'off',
      says: 'This change needs a second factor, and second factors are turned off for your organization. Ask an administrator to make the change, or to allow second factors.',
      link: false,
    },
  ])(
    'tells a manager with no second factor what to do when a change asks for one (policy $policy)',
    async ({ policy, says, link }) => {
      storeSession('customer', { accessType: 'Customer' });
      const { sent } = renderPortalPage(<StaffPage scope="customer" />, {
        path: '/d/console/staff',
        routes: {
          [`GET ${base}/staff`]: {
            status: 200,
            body: { users: [staffUser({ lockedUntil: '2030-01-01T10:00:00.000Z' })] },
          },
          [`POST ${base}/staff/7/unlock`]: () => stepUpRefusal(),
          'GET /api/auth/v1/customer/second-factors': { status: 200, body: factorsBody({ policy }) },
        },
      });
      const row = (await screen.findByText('Colleague One')).closest('tr') as HTMLElement;
      await userEvent.click(within(row).getByRole('button', { name: 'Unlock: colleague.one' }));
      expect(await screen.findByRole('heading', { name: 'Confirm it is you' })).toBeTruthy();
      expect((await screen.findByRole('alert')).textContent).toContain(says);
      expect(screen.queryByLabelText(/code/i)).toBeNull();
      const securityLink = screen.queryByRole('link', { name: 'Open the security page' });
      expect(securityLink?.getAttribute('href') ?? null).toBe(link ? '/d/security' : null);
      expect(sent.filter((call) => call.route.includes('/sign-in/second-factor'))).toEqual([]);
    },
  );

  it('asks before disabling a user, and sends nothing when canceled', async () => {
    storeSession('customer', { accessType: 'Customer' });
    const { sent } = renderPortalPage(<StaffPage scope="customer" />, {
      path: '/d/console/staff',
      routes: {
        [`GET ${base}/staff`]: { status: 200, body: { users: [staffUser()] } },
        [`POST ${base}/staff/7/disable`]: { status: 200, body: staffUser({ disabled: true }) },
      },
    });
    await userEvent.click(await screen.findByRole('button', { name: 'Disable: colleague.one' }));
    const question = screen.getByRole('alertdialog', {
      name: 'Disable colleague.one? Their open sessions end.',
    });
    // The safe answer takes the focus, as in every confirmation of the portal, and reads out the question.
    const keep = within(question).getByRole('button', { name: 'Cancel' });
    expect(document.activeElement).toBe(keep);
    expect(keep.getAttribute('aria-describedby')).toBe(question.getAttribute('aria-labelledby'));
    await userEvent.click(within(question).getByRole('button', { name: 'Cancel' }));
    expect(sent.map((call) => call.route)).not.toContain(`POST ${base}/staff/7/disable`);

    await userEvent.click(screen.getByRole('button', { name: 'Disable: colleague.one' }));
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('Disabled colleague.one; their sessions have ended.')).toBeTruthy();
  });

  it("shows the server's words when a call is refused, and an empty state", async () => {
    storeSession('customer', { accessType: 'Customer' });
    renderPortalPage(<StaffPage scope="customer" />, {
      path: '/d/console/staff',
      routes: {
        [`GET ${base}/staff`]: { status: 200, body: { users: [] } },
        [`POST ${base}/staff`]: {
          status: 409,
          body: {
            errorCode: 'DuplicateValue',
            message: 'There is already a customer user named "ana".',
            errors: [],
          },
        },
      },
    });
    expect(await screen.findByText('No staff user matches.')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Invite' }));
    await userEvent.type(screen.getByLabelText('Username'), 'ana');
    await userEvent.type(screen.getByLabelText('E-mail address'), 'ana@example.com');
    await userEvent.click(screen.getByRole('button', { name: 'Send the invitation' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'There is already a customer user named "ana".',
    );
  });
});

describe('OrganizationsPage', () => {
  it('lists the organizations with their counts and policy', async () => {
    storeSession('admin');
    renderPortalPage(<OrganizationsPage scope="admin" />, {
      path: '/a/console/organizations',
      routes: { [`GET ${base}/organizations`]: { status: 200, body: { organizations: [organization] } } },
    });
    const row = (await screen.findByText('Sender Inc.')).closest('tr') as HTMLElement;
    expect(
      within(row)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['Sender Inc.sender · customer id 1001', '12', '3', 'Optional', 'EditOpen its portal']);
  });

  it('creates an organization and says so', async () => {
    storeSession('admin');
    const { sent } = renderPortalPage(<OrganizationsPage scope="admin" />, {
      path: '/a/console/organizations',
      routes: {
        [`GET ${base}/organizations`]: { status: 200, body: { organizations: [] } },
        [`POST ${base}/organizations`]: { status: 200, body: { ...organization, name: 'New Org' } },
      },
    });
    expect(await screen.findByText('No organization matches.')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'New organization' }));
    await userEvent.type(screen.getByLabelText('Subdomain'), 'neworg');
    await userEvent.type(screen.getByLabelText('Name'), 'New Org');
    await userEvent.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Created New Org.')).toBeTruthy();
    expect(sent.find((call) => call.route === `POST ${base}/organizations`)?.body).toEqual({
      subdomain: 'neworg',
      name: 'New Org',
      consumerMfaRequired: true,
      maxPasswordAgeDays: null,
    });
  });

  it("previews a new logo before saving, shows the server's words for a refused one, and sends the change", async () => {
    storeSession('admin');
    const user = userEvent.setup();
    const scripted = '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>';
    const drawn = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="10" height="10"/></svg>';
    const refusedLogo =
      'The logo must be a PNG or SVG file of at most 64 KB that only draws: it runs a script.';
    let patches = 0;
    const { sent } = renderPortalPage(<OrganizationsPage scope="admin" />, {
      path: '/a/console/organizations',
      routes: {
        [`GET ${base}/organizations`]: { status: 200, body: { organizations: [organization] } },
        [`PATCH ${base}/organizations/1001`]: () => {
          patches += 1;
          return patches === 1
            ? {
                status: 400,
                body: {
                  errorCode: 'InvalidValue',
                  message: refusedLogo,
                  errors: [{ field: 'logo', message: refusedLogo }],
                },
              }
            : { status: 200, body: { ...organization, name: 'Sender Renamed', hasLogo: true } };
        },
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Edit Sender Inc.' }));
    const form = screen.getByRole('form', { name: 'Edit Sender Inc.' });
    const logoField = within(form).getByLabelText(/Logo/);
    const svgFile = (text: string) => new File([text], 'logo.svg', { type: 'image/svg+xml' });

    await user.upload(logoField, svgFile(scripted));
    const preview = await within(form).findByRole('img', { name: 'Preview of the new logo' });
    expect(preview.getAttribute('src')).toBe(`data:image/svg+xml;base64,${btoa(scripted)}`);
    expect(sent.filter((call) => call.route.startsWith('PATCH'))).toEqual([]);

    const name = within(form).getByLabelText('Name');
    await user.clear(name);
    await user.type(name, 'Sender Renamed');
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(refusedLogo)).toBeTruthy();
    expect(screen.getByRole('form', { name: 'Edit Sender Inc.' })).toBeTruthy();

    await user.upload(logoField, svgFile(drawn));
    await waitFor(() =>
      expect(within(form).getByRole('img', { name: 'Preview of the new logo' }).getAttribute('src')).toBe(
        `data:image/svg+xml;base64,${btoa(drawn)}`,
      ),
    );
    await user.click(within(form).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Saved Sender Renamed.')).toBeTruthy();
    const patched = sent.filter((call) => call.route === `PATCH ${base}/organizations/1001`);
    expect(patched.map((call) => (call.body as { logoBase64?: string }).logoBase64)).toEqual([
      btoa(scripted),
      btoa(drawn),
    ]);
    expect(patched.at(-1)?.body).toMatchObject({ name: 'Sender Renamed', staffSecondFactor: 'optional' });
  });
});
