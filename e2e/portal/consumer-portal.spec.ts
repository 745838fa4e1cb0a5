import type { Page } from '@playwright/test';
import type { LinkFixture, PortalServer } from './support/portal-server.ts';
import { expect, test } from './support/portal-test.ts';

const codeMail = /verification code/i;

async function codeFromMail(portal: PortalServer, link: LinkFixture, index = 0): Promise<string> {
  const mail = await portal.waitForMail(link.email, codeMail, index);
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (code === undefined) throw new Error(`no code in: ${mail.text}`);
  return code;
}

async function answer(
  page: Page,
  link: LinkFixture,
  fields: readonly ('last4Ssn' | 'postalCode' | 'dateOfBirth')[],
) {
  if (fields.includes('last4Ssn')) {
    await page.getByLabel('Last 4 digits of your Social Security number').fill(link.answers.last4Ssn);
  }
  if (fields.includes('postalCode')) await page.getByLabel('ZIP code').fill(link.answers.postalCode);
  if (fields.includes('dateOfBirth')) {
    const [year, month, day] = link.answers.dateOfBirth.split('-') as [string, string, string];
    await page.getByLabel('Month').selectOption(month);
    await page.getByLabel('Day').selectOption(day);
    await page.getByLabel('Year').selectOption(year);
  }
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function enterCode(page: Page, code: string) {
  await page.getByLabel('6-digit code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The WCAG contrast ratio of two `rgb(...)` colors. */
function contrastOf(first: string, second: string): number {
  const luminance = (color: string) => {
    const [r = 0, g = 0, b = 0] = (color.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((channel) => {
      const value = channel / 255;
      return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const [lighter, darker] = [luminance(first), luminance(second)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

const verifiedTypes = [
  { signInType: 'Last4Ssn', page: 'verify-token', fields: ['last4Ssn'] },
  { signInType: 'PostalCode', page: 'verify-token', fields: ['postalCode'] },
  { signInType: 'DateOfBirth', page: 'verify-token', fields: ['dateOfBirth'] },
  { signInType: 'None', page: 'verify-identity', fields: ['last4Ssn', 'postalCode', 'dateOfBirth'] },
] as const;

test.describe('consumer sign-in through a link', () => {
  for (const type of verifiedTypes) {
    test(`a ${type.signInType} link asks its answers, then the mailed code, and opens the targeted page`, async ({
      page,
      portal,
      expectNoAxeViolations,
    }) => {
      const link = await portal.createLink(type.signInType);
      // Target 2 (payment options) for item 77.
      await page.goto(`${portal.tenant()}/${link.guid}/2/77`);
      await expect(page).toHaveURL(`${portal.tenant()}/c/${type.page}`);
      await expectNoAxeViolations();

      // Errors show after submission only.
      await page.getByRole('button', { name: 'Continue' }).click();
      await expect(page.getByRole('alert').first()).toBeVisible();
      await expectNoAxeViolations();
      await answer(page, link, type.fields);

      await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
      await expect(page.getByRole('heading', { name: 'Enter your code' })).toBeVisible();
      await expectNoAxeViolations();
      await enterCode(page, await codeFromMail(portal, link));

      await expect(page).toHaveURL(`${portal.tenant()}/c/payment-options/77`);
      await expect(page.getByRole('heading', { name: 'Payment options' })).toBeVisible();
      await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);
      await expect(page.getByTestId('link-data')).toContainText('$310.50');
      await expect(page.getByTestId('link-data')).toContainText('Weekly');
      expect(await page.evaluate(() => sessionStorage.getItem('session-guid'))).toMatch(/^[0-9a-f-]{36}$/);
      await expectNoAxeViolations();
    });
  }

  test('a Direct link opens its page at once, with the consumer and the link data', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('Direct');
    await page.goto(`${portal.tenant()}/${link.guid}/0`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/account-summary`);
    await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);
    await expect(page.getByTestId('link-data')).toContainText('$310.50');
    await expectNoAxeViolations();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(`${portal.tenant()}/c/signed-out`);
    await expect(page.getByRole('status').filter({ hasText: 'You have signed out.' })).toHaveCount(1);
    expect(await page.evaluate(() => sessionStorage.getItem('consumer-token'))).toBeNull();
  });

  test('a consumer without a link verifies all three answers and the code', async ({ page, portal }) => {
    const link = await portal.createLink('None');
    await page.goto(`${portal.tenant()}/c/verify-identity`);
    await answer(page, link, ['last4Ssn', 'postalCode', 'dateOfBirth']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    await enterCode(page, await codeFromMail(portal, link));
    await expect(page).toHaveURL(`${portal.tenant()}/c/`);
    await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);
  });

  test('wrong answers are refused and, after five, the link is locked', async ({ page, portal }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    const wrong = link.answers.postalCode === '11111' ? '22222' : '11111';
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await page.getByLabel('ZIP code').fill(wrong);
      await page.getByRole('button', { name: 'Continue' }).click();
      if (attempt < 5) await expect(page.getByRole('button', { name: 'Continue' })).toBeEnabled();
      if (attempt === 1) {
        await expect(page.getByRole('alert')).toHaveText(
          'These details do not match our records. Check them and try again. 4 tries left before verification locks for a while.',
        );
        // The page explains the refusal; the generic "try again later" would contradict it (decision 005).
        await expect(page.getByText('The server returned an error. Please try again later.')).toHaveCount(0);
      }
    }
    // The answer that used the last try says when the lock ends (Retry-After), in the page's own time zone.
    await expect(page.getByRole('alert')).toHaveText(
      /^For your security, verification is locked after too many attempts\. Try again after \d{1,2}:\d{2} [AP]M, or contact Sender Collections\.$/,
    );
    await expect(page.getByLabel('ZIP code')).toHaveCount(0);
  });

  test('an expired link leads to the expired-link page', async ({ page, portal, expectNoAxeViolations }) => {
    const direct = await portal.createLink('Direct', { validForMs: -60_000 });
    await page.goto(`${portal.tenant()}/${direct.guid}`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/expired-link`);
    await expectNoAxeViolations();

    const verified = await portal.createLink('Last4Ssn', { validForMs: -60_000 });
    await page.goto(`${portal.tenant()}/${verified.guid}`);
    await answer(page, verified, ['last4Ssn']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/expired-link`);
  });

  test('a wrong code is refused, and a new code can be asked for once a minute', async ({ page, portal }) => {
    await page.clock.install();
    const link = await portal.createLink('Last4Ssn');
    await page.goto(`${portal.tenant()}/${link.guid}/1`);
    await answer(page, link, ['last4Ssn']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    const firstCode = await codeFromMail(portal, link);

    await enterCode(page, firstCode === '000000' ? '111111' : '000000');
    await expect(page.getByRole('alert')).toHaveText(
      'That code is not right, or it has expired. Check the latest mail from us, or ask for a new code. 4 tries left.',
    );

    const resend = page.getByRole('button', { name: 'Send a new code' });
    await expect(resend).toBeDisabled();
    await expect(page.getByText(/You can ask for a new code in \d+ seconds\./)).toBeVisible();
    await page.clock.fastForward('01:01');
    await expect(resend).toBeEnabled();
    // The server's own minute is measured on its clock.
    portal.clock.advanceMinutes(1.1);
    await resend.click();
    await expect(page.getByRole('status').filter({ hasText: 'We have sent a new code.' })).toBeVisible();
    await expect(resend).toBeDisabled();

    const secondCode = await codeFromMail(portal, link, 1);
    await enterCode(page, secondCode);
    await expect(page).toHaveURL(`${portal.tenant()}/c/documents`);
  });

  test('once the code mails of the hour are used up, the page says when a new code can be asked for', async ({
    page,
    portal,
  }) => {
    await page.clock.install();
    const link = await portal.createLink('Last4Ssn');
    await page.goto(`${portal.tenant()}/${link.guid}/1`);
    await answer(page, link, ['last4Ssn']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    const resend = page.getByRole('button', { name: 'Send a new code' });
    // The countdown starts when the page shows; the clock moves on only after that.
    await expect(page.getByText(/^You can ask for a new code in \d+ seconds\.$/)).toBeVisible();
    // The lookup's code was the first mail of the hour; four resends use up the other four.
    for (let resendCount = 1; resendCount <= 5; resendCount += 1) {
      await page.clock.fastForward('01:01');
      portal.clock.advanceMinutes(1.1);
      await resend.click();
      if (resendCount < 5) {
        // The countdown restarts only once the page has the answer; the clock moves on after that.
        await expect(page.getByText(/^You can ask for a new code in \d+ seconds\.$/)).toBeVisible();
        await expect(page.getByRole('status').filter({ hasText: 'We have sent a new code.' })).toBeVisible();
      }
    }
    await expect(page.getByRole('alert')).toHaveText(
      /^We cannot send another code just now\. You can ask for a new code in 5\d minutes\.$/,
    );
    await expect(resend).toBeDisabled();
    await page.clock.fastForward('01:01');
    await expect(resend).toBeDisabled();
  });
});

test.describe('the consumer session', () => {
  test('inactivity shows a warning first, then signs out', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    await page.clock.install();
    const link = await portal.createLink('Direct');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);
    const deadline = Number(await page.evaluate(() => sessionStorage.getItem('idle-expired-time')));
    expect(deadline).toBeGreaterThan(Date.now());

    await page.clock.fastForward('14:01');
    const dialog = page.getByRole('alertdialog', { name: 'Are you still there?' });
    await expect(dialog).toBeVisible();
    await expectNoAxeViolations();
    await dialog.getByRole('button', { name: 'Stay signed in' }).click();
    await expect(dialog).toBeHidden();

    await page.clock.fastForward('14:01');
    await expect(dialog).toBeVisible();
    await page.clock.fastForward('01:00');
    // A Direct link would sign in again by itself: the page offers it instead of the three questions.
    await expect(page).toHaveURL(`${portal.tenant()}/c/signed-out`);
    await expect(
      page
        .getByRole('status')
        .filter({ hasText: 'You were signed out because there was no activity for a while.' }),
    ).toBeVisible();
    await expect(page.getByLabel('ZIP code')).toHaveCount(0);
    expect(await page.evaluate(() => sessionStorage.getItem('consumer-token'))).toBeNull();
  });
});

test.describe('consumer pages on a phone', () => {
  test.use({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });

  test("a ZIP-only link's sign-out, and Start again on the code page, return to the ZIP question", async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}/1`);
    await answer(page, link, ['postalCode']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    // The code is all the page asks for: its field has the focus.
    await expect(page.getByLabel('6-digit code')).toBeFocused();
    await expectNoAxeViolations();

    await page.getByRole('link', { name: 'Start again' }).click();
    await expect(page).toHaveURL(`${portal.tenant()}/c/verify-token`);
    await expect(page.getByLabel('ZIP code')).toBeVisible();
    await expect(page.getByLabel('Year')).toHaveCount(0);

    await answer(page, link, ['postalCode']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    // The new lookup mailed a second code; the first one is void.
    await enterCode(page, await codeFromMail(portal, link, 1));
    await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(`${portal.tenant()}/c/verify-token`);
    await expect(page.getByRole('heading', { level: 1, name: "Confirm it's you" })).toBeVisible();
    await expect(page.getByLabel('ZIP code')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'You have signed out.' })).toBeVisible();
  });

  test("a Direct link's sign-out lands on the organization's signed-out page, whose button opens the link again", async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('Direct');
    await page.goto(`${portal.tenant()}/${link.guid}/2`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/payment-options`);
    await page.getByRole('button', { name: 'Sign out' }).click();

    await expect(page).toHaveURL(`${portal.tenant()}/c/signed-out`);
    await expect(page.getByRole('heading', { level: 1, name: 'Signed out' })).toBeVisible();
    await expect(page.getByRole('banner').getByRole('link', { name: 'Sender Collections' })).toBeVisible();
    await expect(page.getByRole('main')).toContainText('You have signed out.');
    await expect(page.getByRole('main')).toContainText('To see your account with Sender Collections again');
    await expect(page.getByLabel('Last 4 digits of your Social Security number')).toHaveCount(0);
    expect(await page.evaluate(() => sessionStorage.getItem('consumer-token'))).toBeNull();
    await expectNoAxeViolations();
    // Reloaded, the page stays signed out: only the button opens the link.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Signed out' })).toBeVisible();
    expect(await page.evaluate(() => sessionStorage.getItem('consumer-token'))).toBeNull();

    await page.getByRole('button', { name: 'Open your link again' }).click();
    await expect(page).toHaveURL(`${portal.tenant()}/c/account-summary`);
    await expect(page.getByTestId('signed-in-as')).toHaveText(link.consumerName);
  });

  test('a wrong code says how many tries are left', async ({ page, portal }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await answer(page, link, ['postalCode']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    const code = await codeFromMail(portal, link);
    const wrong = code === '000000' ? '111111' : '000000';
    await enterCode(page, wrong);
    await expect(page.getByRole('alert')).toHaveText(
      'That code is not right, or it has expired. Check the latest mail from us, or ask for a new code. 4 tries left.',
    );
    await enterCode(page, wrong);
    await expect(page.getByRole('alert')).toHaveText(/ 3 tries left\.$/);
  });

  test('the disabled "Send a new code" button is readable (4.5:1)', async ({ page, portal }) => {
    const link = await portal.createLink('Last4Ssn');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await answer(page, link, ['last4Ssn']);
    const resend = page.getByRole('button', { name: 'Send a new code' });
    await expect(resend).toBeDisabled();
    const colors = await resend.evaluate((button) => {
      const style = getComputedStyle(button);
      return { text: style.color, background: style.backgroundColor };
    });
    expect(contrastOf(colors.text, colors.background)).toBeGreaterThanOrEqual(4.5);
  });

  test('verification and code pages fit a phone and pass axe-core', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('DateOfBirth');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    // The form renders after the heading; axe checks the page as the consumer fills it in.
    await expect(page.getByLabel('Year')).toBeVisible();
    await expectNoAxeViolations();
    await answer(page, link, ['dateOfBirth']);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    await expect(page.getByLabel('6-digit code')).toBeVisible();
    await expectNoAxeViolations();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  test('the link status pages and verify-identity fit a phone and pass axe-core', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    for (const [path, heading] of [
      ['/c/expired-link', 'This link has expired'],
      ['/c/failed-connection', 'We could not sign you in'],
      ['/c/verify-identity', 'Verify your identity'],
    ] as const) {
      await page.goto(`${portal.tenant()}${path}`);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      // verify-identity shows its form once it knows the host's organization: check the whole page.
      if (path === '/c/verify-identity')
        await expect(page.getByRole('button', { name: 'Continue' })).toBeVisible();
      await expectNoAxeViolations();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
    }
  });
});
