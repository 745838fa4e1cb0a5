import { expect, test } from '../fixtures.ts';

test.describe('email preferences', () => {
  test('opening the link unsubscribes; the buttons switch the state back and forth', async ({
    page,
    demo,
    hosts,
    expectNoAxeViolations,
  }) => {
    const { token, emailAddress } = demo.emailSubscription;
    await page.goto(`${hosts.tenant()}/unsubscribe?token=${encodeURIComponent(token)}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Email Preferences' })).toBeVisible();
    await expect(page.getByText(`Your email ${emailAddress} has been unsubscribed.`)).toBeVisible();
    await expect(page.locator('strong', { hasText: emailAddress })).toBeVisible();
    await expect(page.getByText('To start receiving emails click subscribe below.')).toBeVisible();
    await expectNoAxeViolations();

    const update = page.waitForRequest((request) => request.url().includes('Unsubscribed=false'));
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await update;
    await expect(page.getByText(`Your email ${emailAddress} is currently receiving emails.`)).toBeVisible();
    await expect(page.getByText('To stop receiving emails click unsubscribe below.')).toBeVisible();
    await expectNoAxeViolations();

    await page.getByRole('button', { name: 'Unsubscribe' }).click();
    await expect(page.getByText(`Your email ${emailAddress} has been unsubscribed.`)).toBeVisible();
  });

  test('disables the button while the change is sent', async ({ page, demo, hosts }) => {
    await page.goto(
      `${hosts.tenant()}/unsubscribe?token=${encodeURIComponent(demo.emailSubscription.token)}`,
    );
    const subscribe = page.getByRole('button', { name: 'Subscribe' });
    await expect(subscribe).toBeEnabled();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/api/v1/communication/email/subscription?**', async (route) => {
      await held;
      await route.continue();
    });
    await subscribe.click();
    await expect(subscribe).toBeDisabled();
    release();
    await expect(page.getByRole('button', { name: 'Unsubscribe' })).toBeEnabled();
  });

  for (const [name, query, message] of [
    ['without a token', '', /needs the link from one of our e-mails/],
    ['with an unknown token', '?token=not-a-real-token', /could not find the e-mail preferences/],
  ] as const) {
    test(`explains the problem ${name}`, async ({ page, hosts, expectNoAxeViolations }) => {
      await page.goto(`${hosts.tenant()}/unsubscribe${query}`);
      await expect(page.getByRole('alert').filter({ hasText: message })).toBeVisible();
      await expectNoAxeViolations();
    });
  }
});
