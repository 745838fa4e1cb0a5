import type { Page } from '@playwright/test';
import { Authenticator } from './support/authenticator.ts';
import { expect, signInAsStaff, test } from './support/portal-test.ts';

/**
 * A platform authenticator in the browser itself (the DevTools protocol's WebAuthn domain): it
 * holds discoverable credentials and verifies the user without asking.
 */
async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

async function signOut(page: Page, signInPage: string): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(signInPage);
}

test.describe('staff second factors', () => {
  test('an admin without one sets up an authenticator app at the first sign-in, then signs in with its codes', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const admin = await portal.createStaffUser('admin', { secondFactor: false });
    await page.goto(`${portal.apps}/a/sign-in`);
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    await expect(page).toHaveURL(`${portal.apps}/a/security`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Set up a second factor');
    await expectNoAxeViolations();
    // Only the set-up: the portal's pages wait for a second factor.
    await page.goto(`${portal.apps}/a/home`);
    await expect(page).toHaveURL(`${portal.apps}/a/security`);

    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await expect(page.getByRole('img', { name: /QR code/ })).toBeVisible();
    await expect(page.getByLabel('Code from the app')).toBeFocused();
    await expectNoAxeViolations();
    const authenticator = new Authenticator((await page.getByTestId('totp-secret').textContent()) ?? '');
    await page.getByLabel('Code from the app').fill('000000');
    await page.getByRole('button', { name: 'Confirm the app' }).click();
    await expect(page.getByRole('alert')).toHaveText('The code is not correct.');
    await page.getByLabel('Code from the app').fill(authenticator.nextCode(portal.clock));
    await page.getByRole('button', { name: 'Confirm the app' }).click();

    await expect(page.getByRole('heading', { name: 'Save your recovery codes' })).toBeFocused();
    await portal.waitForMail(admin.email, /^A second factor was added to your account$/);
    const codes = await page.getByTestId('recovery-codes').getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    expect(codes.every((code) => /^[a-z0-9]{5}-[a-z0-9]{5}$/.test(code))).toBe(true);
    await expectNoAxeViolations();
    await page.getByRole('button', { name: 'I have saved them, continue' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/home`);
    await signOut(page, `${portal.apps}/a/sign-in`);

    await signInAsStaff(page, portal, 'a', { ...admin, authenticator });
    await signOut(page, `${portal.apps}/a/sign-in`);

    // A recovery code instead, once.
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/second-factor`);
    await expect(page.getByLabel('Authenticator code')).toBeFocused();
    await expectNoAxeViolations();
    await page.getByRole('radio', { name: 'Use a recovery code' }).check();
    await page.getByLabel('Recovery code', { exact: true }).fill(codes[0] ?? '');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/home`);
    await portal.waitForMail(admin.email, /^A recovery code was used to sign in$/);

    await page.getByRole('link', { name: /Sign-in security/ }).click();
    await expect(page.getByTestId('recovery-codes-left')).toHaveText('9 recovery codes are left.');
    await expectNoAxeViolations();
  });

  test('a passkey added on the security page signs in alone, and as the second step', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    await addVirtualAuthenticator(page);
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    await page.getByRole('link', { name: /Sign-in security/ }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/security`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Sign-in security');

    await page.getByLabel('Name for a new passkey').fill('Test laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect(page.getByRole('list', { name: 'Your passkeys' })).toContainText('Test laptop');
    await expectNoAxeViolations(page);

    await page.getByRole('button', { name: 'Rename Test laptop' }).click();
    await page.getByLabel('New name for Test laptop').fill('Work laptop');
    await page.getByRole('button', { name: 'Save the name' }).click();
    await expect(page.getByRole('list', { name: 'Your passkeys' })).toContainText('Work laptop');

    await page.getByRole('link', { name: 'Back to the portal' }).click();
    await signOut(page, `${portal.apps}/a/sign-in`);

    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/home`);
    await expect(page.getByTestId('signed-in-as')).toHaveText(admin.displayName);
    await signOut(page, `${portal.apps}/a/sign-in`);

    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/second-factor`);
    await expect(page.getByRole('radio', { name: 'Use a passkey' })).toBeChecked();
    await page.getByRole('button', { name: 'Use your passkey' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/home`);
  });

  test('a customer of an organization that leaves it optional signs in with the password alone', async ({
    page,
    portal,
  }) => {
    const customer = await portal.createStaffUser('customer');
    await signInAsStaff(page, portal, 'd', customer);
    await page.getByRole('link', { name: /Sign-in security/ }).click();
    await expect(page.getByRole('button', { name: 'Set up an authenticator app' })).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Recovery codes' })).toHaveCount(0);
  });

  test('the demo admin signs in with the password and a code of its authenticator app', async ({
    page,
    portal,
  }) => {
    const { admin } = portal.demo;
    await signInAsStaff(page, portal, 'a', { ...admin, authenticator: new Authenticator(admin.totpSecret) });
    await expect(page.getByRole('heading', { name: 'Admin portal' })).toBeVisible();
  });
});
