import type { Page, Request } from '@playwright/test';
import { expect, passSecondStep, signInAsStaff, test } from './support/portal-test.ts';

/** The API calls a page makes from now on, by path, in the order they leave. */
function recordApiCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (request: Request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/')) calls.push(url.pathname);
  });
  return calls;
}

async function launchUnknownCustomer(page: Page) {
  await page.getByLabel('Customer id').fill('999999');
  await page.getByRole('button', { name: 'Open the customer portal' }).click();
}

test.describe('the browser session', () => {
  test('a stale token is refreshed before the next request', async ({ page, portal }) => {
    await page.clock.install();
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    const before = await page.evaluate(() => JSON.parse(sessionStorage.getItem('admin-token') ?? '{}'));

    // Past refreshAt (75 % of 15 minutes) without running the page's timers: only the request notices.
    await page.clock.setSystemTime(Date.now() + 12 * 60_000);
    const calls = recordApiCalls(page);
    await launchUnknownCustomer(page);
    await expect(page.getByRole('alert')).toHaveText('No customer has this id.');
    // The click is also the person's activity, reported to the server: both calls wait for the one refresh.
    expect(calls).toEqual([
      '/api/auth/v1/admin/refresh',
      '/api/auth/v1/admin/activity',
      '/api/auth/v1/launch/customer/999999',
    ]);
    const after = await page.evaluate(() => JSON.parse(sessionStorage.getItem('admin-token') ?? '{}'));
    expect(after.token).not.toBe(before.token);
    expect(after.refreshAt).toBeGreaterThan(before.refreshAt);
  });

  test('the token is renewed at refreshAt while the page stays open', async ({ page, portal }) => {
    await page.clock.install();
    const customer = await portal.createStaffUser('customer');
    await signInAsStaff(page, portal, 'd', customer);
    const endsBefore = await page.getByTestId('session-ends').getAttribute('datetime');
    const refreshed = page.waitForResponse((response) =>
      response.url().endsWith('/api/auth/v1/customer/refresh'),
    );
    await page.clock.fastForward('11:30');
    expect((await refreshed).status()).toBe(200);
    await expect(page.getByTestId('session-ends')).not.toHaveAttribute('datetime', endsBefore ?? '');
    await expect(page).toHaveURL(`${portal.apps}/d/home`);
  });

  test('an expired token ends the session with the message, and signing in returns to the page', async ({
    page,
    portal,
  }) => {
    await page.clock.install();
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);

    await page.clock.setSystemTime(Date.now() + 61 * 60_000);
    const calls = recordApiCalls(page);
    await launchUnknownCustomer(page);
    await expect(page).toHaveURL(`${portal.apps}/a/sign-in`);
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: 'The connection to the server has been lost. Please sign in again.' }),
    ).toBeVisible();
    expect(calls).toEqual([]);
    expect(await page.evaluate(() => sessionStorage.getItem('admin-token'))).toBeNull();

    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await passSecondStep(page, portal, 'a', admin);
    await expect(page).toHaveURL(`${portal.apps}/a/home`);
  });

  test('two tabs refreshing at once both stay signed in', async ({ page, context, portal }) => {
    await context.clock.install();
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    // A tab opened from this one starts with a copy of its session storage, as in a browser.
    const [secondTab] = await Promise.all([
      context.waitForEvent('page'),
      page.evaluate(() => window.open('/a/home', '_blank')),
    ]);
    await expect(secondTab.getByRole('heading', { name: 'Admin portal' })).toBeVisible();

    const refreshes: number[] = [];
    page.on('response', (r) => r.url().endsWith('/admin/refresh') && refreshes.push(r.status()));
    secondTab.on('response', (r) => r.url().endsWith('/admin/refresh') && refreshes.push(r.status()));
    await context.clock.fastForward('11:30');
    await expect.poll(() => refreshes.length).toBe(2);
    expect(refreshes).toEqual([200, 200]);

    for (const tab of [page, secondTab]) {
      await launchUnknownCustomer(tab);
      await expect(tab.getByRole('alert')).toHaveText('No customer has this id.');
      await expect(tab).toHaveURL(`${portal.apps}/a/home`);
    }
  });
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test('the staff pages fit a phone screen and pass axe-core', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const admin = await portal.createStaffUser('admin');
    for (const path of ['/a/sign-in', '/a/reset-password', '/a/change-password', '/d/sign-in', '/d/launch']) {
      await page.goto(`${portal.apps}${path}`);
      await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
      await expectNoAxeViolations();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
    }
    await signInAsStaff(page, portal, 'a', admin);
    await expectNoAxeViolations();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
