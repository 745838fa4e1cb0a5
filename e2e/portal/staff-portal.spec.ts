import { expect, signInAsStaff, test } from './support/portal-test.ts';

test.describe('admin and customer sign-in', () => {
  test('an admin signs in, sees who is signed in and when the session ends, and signs out', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const admin = await portal.createStaffUser('admin');
    await page.goto(`${portal.apps}/a/sign-in`);
    await expectNoAxeViolations();
    await signInAsStaff(page, portal, 'a', admin);

    await expect(page.getByRole('heading', { name: 'Admin portal' })).toBeVisible();
    await expect(page.getByTestId('signed-in-as')).toHaveText(admin.displayName);
    await expect(page.getByTestId('session-ends')).toBeVisible();
    const stored = await page.evaluate(() => JSON.parse(sessionStorage.getItem('admin-token') ?? 'null'));
    expect(stored).toMatchObject({ accessType: 'Admin', hasRestrictedAccess: false });
    await expectNoAxeViolations();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);
    await expect(page.getByRole('status').filter({ hasText: 'You have signed out.' })).toBeVisible();
    expect(await page.evaluate(() => sessionStorage.getItem('admin-token'))).toBeNull();
    await page.goto(`${portal.apps}/a/home`);
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);
  });

  test('a customer signs in and sees their organization', async ({ page, portal, expectNoAxeViolations }) => {
    const customer = await portal.createStaffUser('customer');
    await signInAsStaff(page, portal, 'd', customer);
    await expect(page.getByRole('heading', { name: 'Customer portal' })).toBeVisible();
    await expect(page.getByTestId('signed-in-as')).toHaveText(customer.displayName);
    await expect(page.getByText(portal.demo.tenant.customerName)).toBeVisible();
    await expectNoAxeViolations();
  });

  test('a wrong password is refused in plain words, after submission only', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const admin = await portal.createStaffUser('admin');
    await page.goto(`${portal.apps}/a/sign-in`);
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Username').blur();
    await expect(page.getByRole('alert')).toHaveCount(0);

    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert')).toHaveText('Enter your password.');
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert')).toHaveText(
      'The username or password is not correct. Check both and try again.',
    );
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);
    await expectNoAxeViolations();
  });

  test('the password field can show what was typed, on a phone, and hide it again', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${portal.apps}/d/sign-in`);
    const password = page.getByLabel('Password', { exact: true });
    await password.fill('quartz meadow lantern');
    await expect(password).toHaveAttribute('type', 'password');
    await page.getByRole('button', { name: 'Show password' }).click();
    await expect(password).toHaveAttribute('type', 'text');
    await expect(password).toHaveValue('quartz meadow lantern');
    await expectNoAxeViolations();
    await page.getByRole('button', { name: 'Hide password' }).click();
    await expect(password).toHaveAttribute('type', 'password');
  });

  test('ten wrong passwords lock the account, and the page says so', async ({ page, portal }) => {
    const customer = await portal.createStaffUser('customer');
    await page.goto(`${portal.apps}/d/sign-in`);
    await page.getByLabel('Username').fill(customer.username);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      await page.getByLabel('Password', { exact: true }).fill(`wrong password ${attempt}`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeEnabled();
    }
    await expect(page.getByRole('alert')).toContainText(
      'This account is locked after too many failed sign-ins. Try again in 15 minutes',
    );
    // Even the right password is refused while the lock lasts.
    await page.getByLabel('Password', { exact: true }).fill(customer.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert')).toContainText('Try again in 15 minutes');
  });
});
