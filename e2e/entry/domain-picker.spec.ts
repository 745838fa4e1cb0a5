import { expect, test } from '../fixtures.ts';

const messages = {
  required: 'This field is required.',
  length: 'This value must be between 3 and 63 characters long.',
  invalid: 'This value must be a valid subdomain with no upper case letters.',
  notFound: 'Invalid domain. Please check your credentials and try again.',
};

test.describe('domain picker', () => {
  for (const host of ['bare', 'apps'] as const) {
    test(`shows the form on the ${host} host`, async ({ page, hosts, expectNoAxeViolations }) => {
      await page.goto(`${hosts[host]}/`);
      await expect(page.getByRole('heading', { level: 1, name: 'Enter Domain' })).toBeVisible();
      await expect(page.getByRole('textbox', { name: 'Domain' })).toBeVisible();
      await expect(page.getByText('.localhost', { exact: true })).toBeVisible();
      await expect(
        page.getByText(
          'If you received a letter in the mail, that letter should include the domain (e.g. sender.localhost).',
        ),
      ).toBeVisible();
      await expect(
        page.getByText(
          'If you are associated with a partner of the provider, you will need to contact that partner to get the proper domain.',
        ),
      ).toBeVisible();
      await expectNoAxeViolations();
    });
  }

  test('shows the field messages and ignores submits while invalid', async ({
    page,
    hosts,
    expectNoAxeViolations,
  }) => {
    const lookups: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/auth/v1/access/')) lookups.push(request.url());
    });
    await page.goto(`${hosts.bare}/`);
    const field = page.getByRole('textbox', { name: 'Domain' });
    const next = page.getByRole('button', { name: 'Next' });

    await next.click();
    await expect(page.getByRole('alert')).toHaveText(messages.required);
    await expectNoAxeViolations();
    for (const [value, message] of [
      ['ab', messages.length],
      ['sen der', messages.invalid],
      ['sender_', messages.invalid],
    ] as const) {
      await field.fill(value);
      await next.click();
      await expect(page.getByRole('alert')).toHaveText(message);
    }
    expect(lookups).toEqual([]);

    await field.fill('nobody');
    await next.click();
    await expect(page.getByRole('alert')).toHaveText(messages.notFound);
    expect(lookups).toHaveLength(1);
  });

  test('disables Next while the lookup runs, then opens the portal of the subdomain', async ({
    page,
    hosts,
  }) => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/auth/v1/access/sender', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${hosts.bare}/`);
    await page.getByRole('textbox', { name: 'Domain' }).fill('sender');
    const next = page.getByRole('button', { name: 'Next' });
    await next.click();
    await expect(next).toBeDisabled();
    release();
    await page.waitForURL(`${hosts.tenant('sender')}/c/**`);
    // Without a session the portal asks who the person is.
    await expect(page.getByRole('heading', { level: 1, name: 'Verify your identity' })).toBeVisible();
  });

  test('on a tenant host, looks the tenant up and opens its portal', async ({ page, hosts }) => {
    await page.goto(`${hosts.tenant('sender')}/`);
    await page.waitForURL(`${hosts.tenant('sender')}/c/verify-identity`);
  });

  test('on an unknown tenant host, says so above the form, and only there', async ({
    page,
    hosts,
    expectNoAxeViolations,
  }) => {
    await page.goto(`${hosts.tenant('nobody')}/`);
    await expect(page.getByRole('heading', { level: 1, name: 'Enter Domain' })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveText(
      `No organization uses the address nobody.localhost. Check the address in your letter or e-mail, or enter your domain below.`,
    );
    await expect(page.getByRole('textbox', { name: 'Domain' })).toBeVisible();
    await expect(page.locator('.snack-bar')).toHaveCount(0);
    expect(page.url()).toBe(`${hosts.tenant('nobody')}/`);
    await expectNoAxeViolations();
  });

  for (const [marker, portalPath] of [
    ['admin', '/a'],
    ['dash', '/d'],
  ] as const) {
    test(`sends a domain holding the ${marker} marker to ${portalPath} on the apps host`, async ({
      page,
      hosts,
    }) => {
      await page.goto(`http://apps.${marker}.localhost:${new URL(hosts.bare).port}/`);
      await page.waitForURL((url) => url.origin === hosts.apps && url.pathname.startsWith(portalPath));
    });
  }

  test('redirects any other path of more than three segments to the empty path', async ({ page, hosts }) => {
    await page.goto(`${hosts.bare}/one/two/three/four`);
    await page.waitForURL(`${hosts.bare}/`);
    await expect(page.getByRole('heading', { level: 1, name: 'Enter Domain' })).toBeVisible();
  });
});

test.describe('domain picker on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test('an unknown domain gets one message: under the field, not in the snack-bar too', async ({
    page,
    hosts,
    expectNoAxeViolations,
  }) => {
    await page.goto(`${hosts.bare}/`);
    await page.getByRole('textbox', { name: 'Domain' }).fill('nobody');
    const lookup = page.waitForResponse((response) => response.url().includes('/api/auth/v1/access/nobody'));
    await page.getByRole('button', { name: 'Next' }).click();
    expect((await lookup).status()).toBe(404);
    await expect(page.getByRole('alert')).toHaveText(messages.notFound);
    await expect(page.getByText('The server returned an error. Please try again later.')).toHaveCount(0);
    await expect(page.locator('.snack-bar')).toHaveCount(0);
    await expectNoAxeViolations();
  });

  for (const [what, pasted] of [
    ['web address', (tenant: string) => `${tenant}/`],
    ['full domain with capitals and spaces', () => ' Sender.localhost '],
  ] as const) {
    test(`a pasted ${what} opens the portal of sender`, async ({ page, hosts }) => {
      await page.goto(`${hosts.bare}/`);
      const field = page.getByRole('textbox', { name: 'Domain' });
      await field.fill(pasted(hosts.tenant('sender')));
      await page.getByRole('button', { name: 'Next' }).click();
      await page.waitForURL(`${hosts.tenant('sender')}/c/**`);
      await expect(page.getByRole('heading', { level: 1, name: 'Verify your identity' })).toBeVisible();
    });
  }

  test('says when the server cannot be reached, and Next works once it is back', async ({ page, hosts }) => {
    await page.goto(`${hosts.bare}/`);
    await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    await page.getByRole('textbox', { name: 'Domain' }).fill('sender');
    await page.getByRole('button', { name: 'Next' }).click();
    await expect(page.getByRole('alert')).toContainText('We cannot reach the server right now');
    await page.unroute('**/api/**');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(`${hosts.tenant('sender')}/c/**`);
  });
});
