import type { Page } from '@playwright/test';
import type { LinkFixture, PortalServer } from './support/portal-server.ts';
import { expect, test } from './support/portal-test.ts';

/** A phone in a Spanish-speaking home in the United States. */
test.use({ locale: 'es-US', timezoneId: 'America/Los_Angeles', viewport: { width: 390, height: 844 } });

/** A clock time as es-US writes it: "3:45 p.m.", "10:05 a.m." */
const spanishTime = /\d{1,2}:\d{2}\s[ap]\.\s?m\./;

async function codeFromMail(portal: PortalServer, link: LinkFixture, subject: RegExp): Promise<string> {
  const mail = await portal.waitForMail(link.email, subject);
  const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (code === undefined) throw new Error(`no code in: ${mail.text}`);
  return code;
}

async function answerZip(page: Page, zip: string) {
  await page.getByLabel('Código postal (ZIP)').fill(zip);
  await page.getByRole('button', { name: 'Continuar' }).click();
}

async function expectLanguage(page: Page, language: 'en' | 'es') {
  await expect(page.locator('html')).toHaveAttribute('lang', language);
  const pressed = language === 'es' ? 'Español' : 'English';
  await expect(page.getByRole('button', { name: pressed })).toHaveAttribute('aria-pressed', 'true');
}

test.describe('a consumer page in Spanish', () => {
  test('a letter link lands in Spanish through the question and the code to the portal', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}/2?lang=es`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/verify-token`);
    await expect(page.getByRole('heading', { level: 1, name: 'Confirme su identidad' })).toBeVisible();
    await expectLanguage(page, 'es');
    await expectNoAxeViolations();

    await answerZip(page, link.answers.postalCode);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    await expect(page.getByRole('heading', { level: 1, name: 'Escriba su código' })).toBeVisible();
    await expectNoAxeViolations();
    await page
      .getByLabel('Código de 6 dígitos')
      .fill(await codeFromMail(portal, link, /verification code|código/i));
    await page.getByRole('button', { name: 'Continuar' }).click();

    await expect(page).toHaveURL(`${portal.tenant()}/c/payment-options`);
    await expect(page.getByRole('heading', { level: 1, name: 'Opciones de pago' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Cerrar sesión' })).toBeVisible();
    await expectLanguage(page, 'es');
    await expectNoAxeViolations();
  });

  // Needs the server's Spanish mail (branch h-es-server): the code is mailed in the page's language.
  test('the code mail of a Spanish page is in Spanish', async ({ page, portal }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}?lang=es`);
    await answerZip(page, link.answers.postalCode);
    await expect(page).toHaveURL(`${portal.tenant()}/c/mfa`);
    const mail = await portal.waitForMail(link.email, /código de verificación/i);
    expect(mail.text).toMatch(/Su código de verificación es \d{6}\./);
  });

  test('the switch goes to English and back, and the choice holds for the tab', async ({ page, portal }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Confirme su identidad' })).toBeVisible();

    await page.getByRole('button', { name: 'English' }).click();
    await expect(page.getByRole('heading', { level: 1, name: "Confirm it's you" })).toBeVisible();
    await expect(page.getByLabel('ZIP code')).toBeVisible();
    await expectLanguage(page, 'en');
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: "Confirm it's you" })).toBeVisible();

    await page.getByRole('button', { name: 'Español' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Confirme su identidad' })).toBeVisible();
    await expectLanguage(page, 'es');
  });

  test('a wrong answer and the lock speak Spanish, with the local time', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    const wrong = link.answers.postalCode === '11111' ? '22222' : '11111';
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await answerZip(page, wrong);
      if (attempt < 5) await expect(page.getByRole('button', { name: 'Continuar' })).toBeEnabled();
      if (attempt === 1) {
        await expect(page.getByRole('alert')).toHaveText(
          'Estos datos no coinciden con nuestros registros. Revíselos e inténtelo de nuevo. Le quedan 4 intentos antes de que la verificación se bloquee por un tiempo.',
        );
        await expectNoAxeViolations();
      }
    }
    const lock = page.getByRole('alert');
    await expect(lock).toContainText(
      'Por su seguridad, la verificación se bloqueó después de demasiados intentos.',
    );
    await expect(lock).toContainText(spanishTime);
    await expect(lock).toContainText('Sender Collections');
    await expectNoAxeViolations();
  });

  test('an expired link speaks Spanish', async ({ page, portal, expectNoAxeViolations }) => {
    const direct = await portal.createLink('Direct', { validForMs: -60_000 });
    await page.goto(`${portal.tenant()}/${direct.guid}`);
    await expect(page).toHaveURL(`${portal.tenant()}/c/expired-link`);
    await expect(page.getByRole('heading', { level: 1, name: 'Este enlace venció' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Confirmar su identidad' })).toBeVisible();
    await expectNoAxeViolations();
  });
});

test.describe('an English browser', () => {
  test.use({ locale: 'en-US' });

  test('gets English, and Spanish with the letter’s ?lang=es', async ({ page, portal }) => {
    const link = await portal.createLink('PostalCode');
    await page.goto(`${portal.tenant()}/${link.guid}`);
    await expect(page.getByRole('heading', { level: 1, name: "Confirm it's you" })).toBeVisible();
    await expectLanguage(page, 'en');

    const letter = await portal.createLink('PostalCode');
    const fresh = await page.context().newPage();
    await fresh.goto(`${portal.tenant()}/${letter.guid}?lang=es`);
    await expect(fresh.getByRole('heading', { level: 1, name: 'Confirme su identidad' })).toBeVisible();
    await expect(fresh).toHaveURL(`${portal.tenant()}/c/verify-token`);
    await expectLanguage(fresh, 'es');
  });
});
