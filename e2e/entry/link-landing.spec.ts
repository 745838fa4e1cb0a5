import type { Request } from '@playwright/test';
import { expect, test } from '../fixtures.ts';

/** Target code (and id) of a link -> the consumer portal page it leads to (docs/rules.md#web). */
const targets: [link: string, portalPath: string, heading: string][] = [
  ['', '/c/account-summary', 'Account summary'],
  ['/0', '/c/account-summary', 'Account summary'],
  ['/1', '/c/documents', 'Documents'],
  ['/2', '/c/payment-options', 'Payment options'],
  ['/3/42', '/c/document-view/42', 'Document'],
  ['/4', '/c/payment-method', 'Payment method'],
  ['/5/17', '/c/payment-method/17', 'Payment method'],
  ['/6', '/c/', 'Welcome'],
  ['/7', '/c/payment-options', 'Payment options'],
  ['/99', '/c/account-summary', 'Account summary'],
];

test.describe('link landing: Direct', () => {
  for (const [link, portalPath, heading] of targets) {
    test(`link target "${link || 'none'}" signs in and opens ${portalPath}`, async ({
      page,
      demo,
      hosts,
      expectNoAxeViolations,
    }) => {
      const apiCalls: Request[] = [];
      let leftLink = false;
      page.on('request', (request) => {
        if (request.isNavigationRequest() && request.url().includes('/c/')) leftLink = true;
        if (!leftLink && request.url().includes('/api/')) apiCalls.push(request);
      });
      const portalNavigation = page.waitForRequest(
        (request) => request.isNavigationRequest() && new URL(request.url()).pathname === portalPath,
      );
      await page.goto(`${hosts.tenant()}/${demo.identityTokens.direct}${link}`);
      const portalRequest = await portalNavigation;
      expect(new URL(portalRequest.url()).searchParams.get('session-guid')).toMatch(/.+/);

      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      expect(new URL(page.url()).pathname).toBe(portalPath);
      expect(page.url()).not.toContain(demo.identityTokens.direct);
      // The link costs the two parallel reads and the sign-in, nothing else (docs/rules.md#budgets).
      expect(
        apiCalls.map((request) => `${request.method()} ${new URL(request.url()).pathname}`).sort(),
      ).toEqual(
        [
          `GET /api/auth/v1/access/${demo.tenant.subdomain}`,
          `GET /api/auth/v1/consumers/token/${demo.identityTokens.direct}`,
          'POST /api/auth/v1/consumer/sign-in/identity-token',
        ].sort(),
      );
      const stored = await page.evaluate(() => ({
        redirect: sessionStorage.getItem('token-redirect'),
        token: sessionStorage.getItem('consumer-token'),
      }));
      expect(stored.redirect).toBe(portalPath.slice('/c/'.length));
      expect(stored.token).toContain('"accessType":"Consumer"');
      await expectNoAxeViolations();
    });
  }
});

test.describe('link landing: other sign-in types', () => {
  for (const [kind, path, heading] of [
    ['last4Ssn', '/c/verify-token', "Confirm it's you"],
    ['postalCode', '/c/verify-token', "Confirm it's you"],
    ['dateOfBirth', '/c/verify-token', "Confirm it's you"],
    ['none', '/c/verify-identity', 'Verify your identity'],
    ['expired', '/c/expired-link', 'This link has expired'],
  ] as const) {
    test(`a ${kind} link goes to ${path}`, async ({ page, demo, hosts, expectNoAxeViolations }) => {
      const token = demo.identityTokens[kind];
      await page.goto(`${hosts.tenant()}/${token}/2`);
      await page.waitForURL(`${hosts.tenant()}${path}`);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      expect(page.url()).not.toContain(token);
      // The token is not left in the history either: Back does not return to it.
      const historyLength = await page.evaluate(() => window.history.length);
      expect(historyLength).toBeLessThanOrEqual(2);
      if (path === '/c/verify-token') {
        expect(await page.evaluate(() => sessionStorage.getItem('token-redirect'))).toBe('payment-options');
        expect(await page.evaluate(() => sessionStorage.getItem('token-target'))).toBe('2');
      }
      await expectNoAxeViolations();
    });
  }

  test('an unknown token on a tenant host goes to the empty path, which opens the tenant portal', async ({
    page,
    hosts,
  }) => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    await page.goto(`${hosts.tenant()}/${unknown}`);
    await page.waitForURL(`${hosts.tenant()}/c/verify-identity`);
    expect(page.url()).not.toContain(unknown);
  });

  test('a link opened on the bare domain goes to the empty path without any call', async ({
    page,
    demo,
    hosts,
  }) => {
    const apiCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/')) apiCalls.push(request.url());
    });
    await page.goto(`${hosts.bare}/${demo.identityTokens.direct}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Enter Domain' })).toBeVisible();
    expect(page.url()).toBe(`${hosts.bare}/`);
    expect(apiCalls).toEqual([]);
  });

  test('shows an accessible busy state while the link is checked, then leaves the link', async ({
    page,
    demo,
    hosts,
  }) => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/auth/v1/consumers/token/**', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${hosts.tenant()}/${demo.identityTokens.none}`);
    await expect(page.locator('.loading-state')).toContainText('Checking your link');
    await expect(page.locator('.loading-state')).toHaveAttribute('role', 'status');
    // Until the link is decided it stays in the address, so a reload can still open it.
    expect(page.url()).toBe(`${hosts.tenant()}/${demo.identityTokens.none}`);
    release();
    await page.waitForURL(`${hosts.tenant()}/c/verify-identity`);
    expect(await page.evaluate(() => window.history.length)).toBeLessThanOrEqual(2);
  });
});

test.describe('link landing on a phone, while the server cannot be reached', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test('says so, keeps the link, and signs in with the same link after Try again', async ({
    page,
    demo,
    hosts,
    expectNoAxeViolations,
  }) => {
    const token = demo.identityTokens.direct;
    await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await page.goto(`${hosts.tenant()}/${token}/1`);

    await expect(
      page.getByRole('heading', { level: 1, name: 'Your link could not be opened yet' }),
    ).toBeVisible();
    await expect(page.getByRole('alert')).toContainText('We cannot reach the server right now.');
    // One message: the page's own, not the snack-bar's too.
    await expect(page.locator('.snack-bar')).toHaveCount(0);
    expect(page.url()).toBe(`${hosts.tenant()}/${token}/1`);
    await expectNoAxeViolations();

    // A reload while the server is still away keeps the link too.
    await page.reload();
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();

    await page.unroute('**/api/**');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL(`${hosts.tenant()}/c/documents`);
    await expect(page.getByRole('heading', { level: 1, name: 'Documents' })).toBeVisible();
    expect(page.url()).not.toContain(token);
  });

  test('tries the link again by itself when the browser comes back online', async ({
    page,
    context,
    demo,
    hosts,
  }) => {
    const token = demo.identityTokens.postalCode;
    await page.route('**/api/**', (route) => route.fulfill({ status: 503, body: '' }));
    await page.goto(`${hosts.tenant()}/${token}`);
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();

    await page.unroute('**/api/**');
    await context.setOffline(true);
    await context.setOffline(false);
    await page.waitForURL(`${hosts.tenant()}/c/verify-token`);
    await expect(page.getByLabel('ZIP code')).toBeVisible();
  });
});
