import { expect, signInAsStaff, test } from './support/portal-test.ts';

/** The console on a phone: every table and form must work at 320 px wide. */
test.use({ viewport: { width: 320, height: 700 } });

test.describe('the operator console', () => {
  test('an admin invites a customer user, who is mailed and listed, and unlocks a locked one', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const admin = await portal.createStaffUser('admin');
    const locked = await portal.createStaffUser('customer');
    await portal.updateStaffUser(locked.username, {
      lockedUntil: new Date(portal.clock.now().getTime() + 3_600_000),
    });
    await signInAsStaff(page, portal, 'a', admin);
    await page.getByRole('link', { name: 'Console: organizations and staff' }).click();
    await expect(page.getByRole('heading', { name: 'Organizations' })).toBeVisible();
    await expect(page.getByText(portal.demo.tenant.customerName).first()).toBeVisible();
    await expectNoAxeViolations();

    await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link', { name: 'Staff' })
      .click();
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await expectNoAxeViolations();
    const username = `invited-${Date.now()}`;
    await page
      .getByLabel('Organization', { exact: true })
      .selectOption({ label: portal.demo.tenant.customerName });
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('E-mail address').fill(`${username}@example.com`);
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await expect(page.getByText(`Invited ${username}`)).toBeVisible();
    const mail = await portal.waitForMail(`${username}@example.com`, /Your new account/);
    expect(mail.text).toMatch(/\/d\/reset-password\?token=/);

    await page.getByLabel('Search by username, name or e-mail').fill(username);
    const invitedRow = page.getByRole('row').filter({ hasText: username });
    await expect(invitedRow.getByText('Invited', { exact: true })).toBeVisible();

    await page.getByLabel('Search by username, name or e-mail').fill(locked.username);
    const lockedRow = page.getByRole('row').filter({ hasText: locked.username });
    await expect(lockedRow.getByText(/^Locked until/)).toBeVisible();
    await expectNoAxeViolations();
    await lockedRow.getByRole('button', { name: `Unlock: ${locked.username}` }).click();
    await expect(page.getByText(`Unlocked ${locked.username}.`)).toBeVisible();
    await expect(lockedRow.getByText('Active', { exact: true })).toBeVisible();
  });

  test("a manager unlocks a colleague and reads their organization's audit log, never another's", async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const manager = await portal.createStaffUser('customer', { secondFactor: true });
    await portal.updateStaffUser(manager.username, { manager: true });
    const colleague = await portal.createStaffUser('customer');
    const locked = await portal.createStaffUser('customer');
    await portal.updateStaffUser(locked.username, {
      lockedUntil: new Date(portal.clock.now().getTime() + 3_600_000),
    });
    const outsider = await portal.createStaffUser('customer');
    const otherOrganization = await portal.createOrganization(`other-${Date.now()}`, 'Other Organization');
    await portal.updateStaffUser(outsider.username, { tenantId: otherOrganization });

    // A sign-in leaves an audit row of the user's organization, naming them as the token's subject does.
    await page.goto(`${portal.apps}/d/sign-in`);
    const signInActor = async (account: { username: string; password: string }) => {
      const answer = await page.evaluate(async (credentials) => {
        const response = await fetch('/api/auth/v1/customer/sign-in', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(credentials),
        });
        return { status: response.status, body: (await response.json()) as { accessToken: string } };
      }, account);
      expect(answer.status).toBe(200);
      const payload = answer.body.accessToken.split('.')[1] ?? '';
      return (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub: string }).sub;
    };
    const colleagueActor = await signInActor({ username: colleague.username, password: colleague.password });
    const outsiderActor = await signInActor({ username: outsider.username, password: outsider.password });

    await signInAsStaff(page, portal, 'd', manager);
    await page.getByRole('link', { name: "Console: your organization's staff and audit log" }).click();
    await expect(page.getByRole('heading', { name: 'Staff' })).toBeVisible();
    const nav = page.getByRole('navigation', { name: 'Console sections' });
    await expect(nav.getByRole('link')).toHaveText(['Staff', 'Audit log']);
    await expect(page.getByText(colleague.username)).toBeVisible();
    await expect(page.getByText(outsider.username)).toHaveCount(0);
    await expectNoAxeViolations();

    await page.getByLabel('Search by username, name or e-mail').fill(locked.username);
    const lockedRow = page.getByRole('row').filter({ hasText: locked.username });
    await expect(lockedRow.getByText(/^Locked until/)).toBeVisible();
    await lockedRow.getByRole('button', { name: `Unlock: ${locked.username}` }).click();
    await expect(page.getByText(`Unlocked ${locked.username}.`)).toBeVisible();
    await expect(lockedRow.getByText('Active', { exact: true })).toBeVisible();

    await nav.getByRole('link', { name: 'Audit log' }).click();
    await expect(page).toHaveURL(`${portal.apps}/d/console/audit`);
    await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
    await expect(page.getByLabel('Customer id')).toHaveCount(0);
    await expectNoAxeViolations();
    const showRows = async (actor: string, event: string) => {
      await page.getByLabel('Actor').fill(actor);
      await page.getByLabel('Event').fill(event);
      await page.getByRole('button', { name: 'Show the rows' }).click();
    };
    await showRows(colleagueActor, 'customer.sign-in');
    await expect(page.getByRole('table').getByText(colleagueActor, { exact: true })).toBeVisible();
    await expectNoAxeViolations();
    await showRows(outsiderActor, 'customer.sign-in');
    await expect(page.getByText('No audit rows match these filters.')).toBeVisible();
    await showRows('', 'console.customer.unlock');
    await expect(page.getByRole('table').getByText('console.customer.unlock').first()).toBeVisible();

    await page.goto(`${portal.apps}/d/console/organizations`);
    await expect(page).toHaveURL(`${portal.apps}/d/console/staff`);
  });
});
