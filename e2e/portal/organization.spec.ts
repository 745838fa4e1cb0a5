import type { Page } from '@playwright/test';
import { expect, test } from './support/portal-test.ts';

/** The demo tenant's details (apps/server/src/demo/seed.ts). */
const organization = {
  name: 'Sender Collections',
  phone: '(800) 555-0199',
  email: 'help@sender.example',
};

const timeZone = 'America/Chicago';

/**
 * The clock times a lock ending `minutes` after `from` may show, in the page's time zone (a minute
 * either side). A refused answer's lock counts from the browser's clock (Retry-After), a reopened
 * link's from the server's, which the tests of this worker move ahead.
 */
function lockEndTimes(minutes: number, from = Date.now()): string[] {
  const format = new Intl.DateTimeFormat('en-US', { hour: 'numeric', minute: '2-digit', timeZone });
  const end = from + minutes * 60_000;
  return [end - 60_000, end, end + 60_000].map((instant) => format.format(instant));
}

async function answerZip(page: Page, zip: string) {
  await page.getByLabel('ZIP code').fill(zip);
  await page.getByRole('button', { name: 'Continue' }).click();
}

test.describe('the organization on its pages, on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, timezoneId: timeZone });

  test('the verification pages name the organization, in the header, the title, the help and the footer', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/verify-token`);
    await expect(page.getByRole('banner').getByRole('link', { name: organization.name })).toBeVisible();
    await expect(page).toHaveTitle(`Confirm it's you - ${organization.name}`);
    const footer = page.getByRole('contentinfo');
    await expect(footer).toContainText(organization.name);
    await expect(footer.getByRole('link', { name: organization.phone })).toHaveAttribute(
      'href',
      'tel:+18005550199',
    );
    await expect(footer.getByRole('link', { name: organization.email })).toBeVisible();
    await expect(footer.getByRole('link', { name: 'Privacy' })).toBeVisible();
    await expectNoAxeViolations();

    await page.getByRole('button', { name: 'Need help?' }).click();
    const help = page.getByRole('dialog', { name: 'Need help?' });
    await expect(help.getByRole('heading', { name: `Contact ${organization.name}` })).toBeVisible();
    await expect(help.getByRole('link', { name: organization.phone })).toBeVisible();
    await expectNoAxeViolations();
    await help.getByRole('button', { name: 'Close help' }).click();

    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);

    // In a new tab without a link, the page looks the organization up itself.
    const fresh = await page.context().newPage();
    await fresh.goto(`${portal.tenant()}/c/verify-identity`);
    await expect(fresh).toHaveTitle(`Verify your identity - ${organization.name}`);
    await expect(fresh.getByRole('banner').getByRole('link', { name: organization.name })).toBeVisible();
    await expect(
      fresh.getByRole('contentinfo').getByRole('link', { name: organization.phone }),
    ).toBeVisible();

    // The footer's privacy link says what the service keeps, naming the organization.
    await fresh.getByRole('contentinfo').getByRole('link', { name: 'Privacy' }).click();
    await expect(fresh.getByRole('heading', { level: 1, name: 'Privacy' })).toBeVisible();
    await expect(fresh).toHaveTitle(`Privacy - ${organization.name}`);
    await expectNoAxeViolations(fresh);
  });

  test('the first paint names the organization, before the app has asked the server who it is', async ({
    page,
    portal,
  }) => {
    // The lookup never answers: whatever names the organization came with the page itself.
    await page.route('**/api/auth/v1/access/**', () => undefined);
    await page.goto(`${portal.tenant()}/c/verify-identity`);
    await expect(page.getByRole('heading', { level: 1, name: 'Verify your identity' })).toBeVisible();
    const html = await page.evaluate(() => fetch(window.location.href).then((response) => response.text()));
    expect(html).toContain(`<title>${organization.name}</title>`);
    expect(html).toContain(`<span class="brand__name">${organization.name}</span>`);
    await expect(page).toHaveTitle(`Verify your identity - ${organization.name}`);
    await expect(page.getByRole('banner').getByRole('link', { name: organization.name })).toBeVisible();
  });

  test("a Direct link's page names the organization without asking the server again", async ({
    page,
    portal,
  }) => {
    const accessLookups: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/auth/v1/access/')) accessLookups.push(request.url());
    });
    const link = await portal.createLink('Direct');
    await page.goto(`${portal.tenant()}/${link.guid}/0`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/account-summary`);
    await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);
    await expect(page.getByRole('banner').getByRole('link', { name: organization.name })).toBeVisible();
    await expect(page).toHaveTitle(`Account summary - ${organization.name}`);
    expect(accessLookups).toHaveLength(1);
  });

  test('wrong answers say the tries left; the lock says when it ends and whom to contact', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('PostalCode');
    const wrong = link.answers.postalCode === '11111' ? '22222' : '11111';
    await page.goto(`${portal.tenant()}/${link.guid}`);
    for (const left of [4, 3, 2, 1]) {
      await answerZip(page, wrong);
      await expect(page.getByRole('alert')).toHaveText(
        `These details do not match our records. Check them and try again. ${left} ${left === 1 ? 'try' : 'tries'} left before verification locks for a while.`,
      );
    }
    await answerZip(page, wrong);
    const lock = page.getByRole('alert');
    await expect(lock).toContainText(
      'For your security, verification is locked after too many attempts. Try again after ',
    );
    // A lock that ends after local midnight says "tomorrow" after its time.
    const shown = /Try again after (\d{1,2}:\d{2} [AP]M)(?: tomorrow)?, or contact Sender Collections\./.exec(
      (await lock.textContent()) ?? '',
    )?.[1];
    expect(lockEndTimes(15)).toContain(shown);
    await expect(page.getByRole('heading', { name: `Contact ${organization.name}` })).toBeVisible();
    await expect(page.getByRole('main').getByRole('link', { name: organization.phone })).toBeVisible();
    await expect(page.getByLabel('ZIP code')).toHaveCount(0);
    await expectNoAxeViolations();
  });

  test('a locked link reloaded or opened again shows the lock before anyone types', async ({
    page,
    portal,
  }) => {
    const link = await portal.createLink('PostalCode');
    const wrong = link.answers.postalCode === '11111' ? '22222' : '11111';
    await page.goto(`${portal.tenant()}/${link.guid}`);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await answerZip(page, wrong);
      await expect(page.getByRole('alert')).toBeVisible();
    }
    await expect(page.getByLabel('ZIP code')).toHaveCount(0);

    // A reload of the locked page keeps the lock.
    await page.reload();
    await expect(page.getByRole('alert')).toContainText('Try again after');
    await expect(page.getByLabel('ZIP code')).toHaveCount(0);

    const reopened = await page.context().newPage();
    await reopened.goto(`${portal.tenant()}/${link.guid}`);
    await expect(reopened).toHaveURL(`${portal.tenant()}/c/verify-token`);
    const lock = reopened.getByRole('alert');
    await expect(lock).toContainText('Try again after');
    const shown = /Try again after (\d{1,2}:\d{2} [AP]M)/.exec((await lock.textContent()) ?? '')?.[1];
    expect(lockEndTimes(15, portal.clock.now().getTime())).toContain(shown);
    await expect(reopened.getByLabel('ZIP code')).toHaveCount(0);
  });
});
