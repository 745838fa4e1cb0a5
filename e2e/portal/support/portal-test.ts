import type { Page } from '@playwright/test';
import { test as base, expect } from '../../fixtures.ts';
import { type PortalServer, type StaffAccount, startPortalServer } from './portal-server.ts';

/**
 * The suite's fixtures plus `portal`: a server of this worker's own with a real SMTP server
 * (the demo data of docs/rules.md#demo-data, plus accounts and links each test makes for itself).
 */
export const test = base.extend<object, { portal: PortalServer }>({
  portal: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
    async ({}, use) => {
      const server = await startPortalServer();
      await use(server);
      await server.close();
    },
    { scope: 'worker', timeout: 180_000 },
  ],
});

export { expect };

/**
 * Signs a staff member in through the page, as a person would: the password, then the
 * authenticator app's code where the account has one.
 */
export async function signInAsStaff(
  page: Page,
  portal: PortalServer,
  scope: 'a' | 'd',
  account: Pick<StaffAccount, 'username' | 'password' | 'authenticator'>,
): Promise<void> {
  await page.goto(`${portal.apps}/${scope}/sign-in`);
  await page.getByLabel('Username').fill(account.username);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await passSecondStep(page, portal, scope, account);
  await expect(page).toHaveURL(`${portal.apps}/${scope}/home`);
}

/** After a password, the authenticator app's code where the account has one; nothing where it has none. */
export async function passSecondStep(
  page: Page,
  portal: PortalServer,
  scope: 'a' | 'd',
  account: Pick<StaffAccount, 'authenticator'>,
): Promise<void> {
  if (account.authenticator === undefined) return;
  await expect(page).toHaveURL(`${portal.apps}/${scope}/second-factor`);
  await page.getByLabel('Authenticator code').fill(account.authenticator.nextCode(portal.clock));
  await page.getByRole('button', { name: 'Continue' }).click();
}
