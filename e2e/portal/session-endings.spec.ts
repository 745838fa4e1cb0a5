import type { Page } from '@playwright/test';
import { staffIdleMinutes } from './support/portal-server.ts';
import { expect, signInAsStaff, test } from './support/portal-test.ts';

const minutes = (count: number) => count * 60_000;
/** The warning's text, its seconds counting down from 60 as the page's clock runs. */
const warning = /^You will be signed out in (60|[1-5]?\d) seconds?\.$/;

/**
 * Lets `ms` pass on an open admin page without activity. The page renews its token while open,
 * between `refreshAt` and the token's expiry: time moves in steps shorter than that gap.
 */
async function letTimePass(page: Page, ms: number) {
  const step = minutes(3);
  for (let left = ms; left > 0; left -= step) {
    await page.clock.fastForward(Math.min(step, left));
    await expect
      .poll(() =>
        page.evaluate(() => {
          const record = JSON.parse(sessionStorage.getItem('admin-token') ?? 'null') as {
            refreshAt: number;
          } | null;
          return record !== null && record.refreshAt > Date.now();
        }),
      )
      .toBe(true);
  }
}

test.describe('idle staff pages', () => {
  test('warn a minute before signing out, "Stay signed in" keeps the session, and the page says why it ended', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    await page.clock.install();
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    await expect(page.getByText(`(sooner after ${staffIdleMinutes} minutes without activity)`)).toBeVisible();

    await letTimePass(page, minutes(staffIdleMinutes - 1) + 1000);
    const dialog = page.getByRole('alertdialog', { name: 'Are you still there?' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toBeFocused();
    await expect(dialog).toHaveAccessibleDescription(warning);
    await expectNoAxeViolations();
    await dialog.getByRole('button', { name: 'Stay signed in' }).click();
    await expect(dialog).toBeHidden();
    await expect(page).toHaveURL(`${portal.apps}/a/home`);

    await letTimePass(page, minutes(staffIdleMinutes - 1));
    await expect(dialog).toBeVisible();
    await expect(dialog).toHaveAccessibleDescription(warning);
    const ended = await page.evaluate(() => JSON.parse(sessionStorage.getItem('admin-token') ?? '{}'));
    await page.clock.fastForward('01:00');
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);
    const reason = page
      .getByRole('status')
      .filter({ hasText: 'You were signed out because there was no activity for a while.' });
    await expect(reason).toBeVisible();
    expect(await page.evaluate(() => sessionStorage.getItem('admin-token'))).toBeNull();
    // It stays until the person does something.
    await page.clock.fastForward('05:00');
    await expect(reason).toBeVisible();
    await page.getByLabel('Username').click();
    await expect(reason).toBeHidden();

    // The server refuses the old session's token too.
    const refused = await page.evaluate(async (token: string) => {
      const response = await fetch('/api/auth/v1/admin/activity', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      return response.status;
    }, ended.token);
    expect(refused).toBe(401);
  });

  test('the server ends a session the page only renews, and the page then signs out', async ({
    page,
    portal,
  }) => {
    await page.clock.install();
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    const sessionGuid = String(await page.evaluate(() => sessionStorage.getItem('session-guid')));
    const refreshes: number[] = [];
    page.on('response', (r) => r.url().endsWith('/admin/refresh') && refreshes.push(r.status()));

    // The page's clock stays far from its own idle limit; the server's passes its own, while the
    // page's timer renews the token and the person does nothing.
    const serverStepMinutes = 25;
    for (let step = 1; step * serverStepMinutes <= staffIdleMinutes; step += 1) {
      portal.clock.advanceMinutes(serverStepMinutes);
      await page.clock.fastForward('11:30');
      await expect.poll(() => refreshes.length).toBe(step);
    }
    portal.clock.advanceMinutes(serverStepMinutes);
    await page.clock.fastForward('11:30');
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: 'The connection to the server has been lost. Please sign in again.' }),
    ).toBeVisible();
    expect(refreshes.at(-1)).toBe(401);
    expect(refreshes.slice(0, -1).every((status) => status === 200)).toBe(true);
    expect(await portal.sessionEnding(sessionGuid)).toBe('idle');
  });
});

test.describe('a launched customer portal', () => {
  async function launchCustomerPortal(page: Page, customerId: number) {
    await page.getByLabel('Customer id').fill(String(customerId));
    await page.getByRole('button', { name: 'Open the customer portal' }).click();
    await expect(page.getByRole('complementary', { name: 'Launched session' })).toBeVisible();
  }

  test("signing out of it returns to the admin portal; it ends with the admin's sign-out", async ({
    page,
    portal,
  }) => {
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    const customerId = portal.demo.tenant.customerId;

    await launchCustomerPortal(page, customerId);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/home`);
    await expect(page.getByRole('heading', { name: 'Admin portal' })).toBeVisible();

    await launchCustomerPortal(page, customerId);
    await page.goto(`${portal.apps}/a/home`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);

    // Back and reload no longer show the launched portal, and its session has ended on the server.
    await page.goto(`${portal.apps}/d/home`);
    await expect(page).toHaveURL(`${portal.apps}/d/sign-in`);
    await expect(page.getByRole('complementary', { name: 'Launched session' })).toBeHidden();
    // The page's own request carries the launched session's refresh cookie.
    const refreshed = await page.evaluate(async () => {
      const response = await fetch('/api/auth/v1/customer/refresh', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      return response.status;
    });
    expect(refreshed).toBe(401);
  });
});
