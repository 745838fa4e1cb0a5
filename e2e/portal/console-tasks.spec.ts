import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from '@playwright/test';
import { Authenticator } from './support/authenticator.ts';
import type { PortalServer } from './support/portal-server.ts';
import { expect, signInAsStaff, test } from './support/portal-test.ts';

/**
 * The operator console's whole tasks (issue 43), each from the admin's sign-in: what an operator
 * once needed a shell on the server for, done from the pages alone. Each test makes its own
 * organization, so none depends on another's data or order.
 */

const phone = { viewport: { width: 320, height: 740 }, isMobile: true, hasTouch: true };
const desktop = { viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false };

const consumersHeader = 'consumerId,name,email,last4Ssn,postalCode,dateOfBirth';

/** A consumer as an organization's import file has them, with the answers they verify with. */
interface ImportedConsumer {
  consumerId: string;
  name: string;
  email: string;
  last4Ssn: string;
  postalCode: string;
  dateOfBirth: string;
}

function consumerRow(index: number): ImportedConsumer {
  const suffix = randomUUID().slice(0, 8);
  return {
    consumerId: `TASK-${index}-${suffix}`,
    name: `Jordan Task ${index}`,
    email: `task-${index}-${suffix}@example.com`,
    last4Ssn: String(4000 + index),
    postalCode: String(60_000 + index),
    dateOfBirth: `198${index}-0${index}-1${index}`,
  };
}

function consumersCsv(rows: ImportedConsumer[]): string {
  const lines = rows.map((row) =>
    [row.consumerId, row.name, row.email, row.last4Ssn, row.postalCode, row.dateOfBirth].join(','),
  );
  return `${[consumersHeader, ...lines].join('\n')}\n`;
}

/** An organization of this test alone, made as the CLI's `tenant create` would. */
async function newOrganization(
  portal: PortalServer,
): Promise<{ customerId: number; name: string; subdomain: string }> {
  const suffix = randomUUID().slice(0, 8);
  const subdomain = `tasks-${suffix}`;
  const name = `Task Agency ${suffix}`;
  return { customerId: await portal.createOrganization(subdomain, name), name, subdomain };
}

/** Opens a console section and waits for its page: until then a field with the same label may still be the last page's. */
async function openSection(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: label }).click();
  await expect(page.getByRole('heading', { name: label, exact: true, level: 2 })).toBeVisible();
}

/** From the admin portal's home to the organization's consumers and mailings. */
async function openConsumers(page: Page, customerId: number): Promise<void> {
  await page.getByRole('link', { name: 'Console: organizations and staff' }).click();
  await openSection(page, 'Consumers and mailings');
  await page.getByLabel('Customer id').fill(String(customerId));
  await page.getByRole('button', { name: 'Show this organization' }).click();
  await expect(page.getByRole('heading', { name: 'Mailings', exact: true })).toBeVisible();
}

async function importConsumers(page: Page, csv: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Import consumers' });
  await form.getByLabel('CSV file').setInputFiles({
    name: 'consumers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await form.getByRole('button', { name: 'Import consumers' }).click();
}

/** Uploads a mailing's CSV and answers the rows of the letter-links CSV the page downloads. */
async function issueMailing(page: Page, mailing: string, csv: string): Promise<Record<string, string>[]> {
  const form = page.getByRole('form', { name: "Issue a mailing's links" });
  await form.getByLabel('Mailing name (optional)').fill(mailing);
  await form.getByLabel('CSV file').setInputFiles({
    name: 'mailing.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  const downloading = page.waitForEvent('download');
  await form.getByRole('button', { name: 'Issue the links' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`${mailing}-links.csv`);
  await expect(form.getByRole('status')).toHaveText(
    `The links of ${mailing} are issued; the letter-links CSV is downloading.`,
  );
  // The letter-links CSV holds ids, codes, links and dates: no value needs quoting.
  const [header = '', ...lines] = (await readFile(await download.path(), 'utf8')).trim().split('\n');
  const columns = header.split(',');
  return lines.map((line) =>
    Object.fromEntries(line.split(',').map((value, i) => [columns[i] ?? '', value])),
  );
}

/** The organization's row of the console's list, found by its search. */
async function organizationRow(page: Page, name: string) {
  await page.getByLabel('Search by name, subdomain or customer id').fill(name);
  return page.getByRole('row').filter({ hasText: name });
}

/** A day of next year by the server's clock: the expiry of a mailing's links. */
function nextYear(portal: PortalServer): string {
  const now = portal.clock.now();
  return `${now.getUTCFullYear() + 1}-06-30`;
}

test.describe('the console, task by task', () => {
  test.describe('at desktop width', () => {
    test.use(desktop);

    test('an admin creates an organization and invites its first customer user, who sets a password and a second factor and signs in', async ({
      page,
      browser,
      portal,
    }) => {
      const admin = await portal.createStaffUser('admin');
      const suffix = randomUUID().slice(0, 8);
      const subdomain = `onboard-${suffix}`;
      const name = `Onboarded Agency ${suffix}`;
      await signInAsStaff(page, portal, 'a', admin);
      await page.getByRole('link', { name: 'Console: organizations and staff' }).click();

      await page.getByRole('button', { name: 'New organization' }).click();
      const creation = page.getByRole('form', { name: 'New organization' });
      await creation.getByLabel('Subdomain').fill(subdomain);
      await creation.getByLabel('Name').fill(name);
      await creation.getByRole('button', { name: 'Create' }).click();
      await expect(page.getByRole('status').filter({ hasText: `Created ${name}.` })).toBeVisible();

      // Its staff must use a second factor: the invited user sets one up before the portal opens.
      const row = await organizationRow(page, name);
      await expect(row).toContainText(subdomain);
      await row.getByRole('button', { name: `Edit ${name}` }).click();
      const editing = page.getByRole('form', { name: `Edit ${name}` });
      await expect(editing.getByRole('link', { name: new RegExp(`^http://${subdomain}\\.`) })).toBeVisible();
      await editing.getByLabel('Second factor for its staff').selectOption({ label: 'Required' });
      await editing.getByRole('button', { name: 'Save' }).click();
      await expect(page.getByRole('status').filter({ hasText: `Saved ${name}.` })).toBeVisible();
      await expect((await organizationRow(page, name)).getByRole('cell').nth(3)).toHaveText('Required');

      await openSection(page, 'Staff');
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      const username = `first-${suffix}`;
      const email = `${username}@example.com`;
      const invitation = page.getByRole('form', { name: 'Invite a staff user' });
      await invitation.getByLabel('Organization', { exact: true }).selectOption({ label: name });
      await invitation.getByLabel('Username').fill(username);
      await invitation.getByLabel('E-mail address').fill(email);
      await invitation.getByLabel('Display name').fill('Robin First');
      await invitation.getByRole('button', { name: 'Send the invitation' }).click();
      await expect(
        page
          .getByRole('status')
          .filter({ hasText: `Invited ${username}: a mail with a link to set a password is on its way.` }),
      ).toBeVisible();

      // The new user, in a browser of their own.
      const mail = await portal.waitForMail(email, /^Your new account$/);
      const link = /https?:\/\/\S+\/d\/reset-password\?token=\S+/.exec(mail.text)?.[0];
      expect(link).toBeDefined();
      const context = await browser.newContext(desktop);
      const user = await context.newPage();
      await user.goto(link ?? '');
      await expect(user.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
      const password = `quiet lantern ${randomUUID().slice(0, 6)} meadow`;
      await user.getByLabel('New password', { exact: true }).fill(password);
      await user.getByLabel('Confirm the new password').fill(password);
      await user.getByRole('button', { name: 'Save the new password' }).click();
      await expect(
        user.getByRole('status').filter({ hasText: 'Your password has been changed.' }),
      ).toBeVisible();

      await user.goto(`${portal.apps}/d/sign-in`);
      await user.getByLabel('Username').fill(username);
      await user.getByLabel('Password', { exact: true }).fill(password);
      await user.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expect(user).toHaveURL(`${portal.apps}/d/security`);
      await expect(user.getByRole('heading', { level: 1 })).toHaveText('Set up a second factor');
      await user.getByRole('button', { name: 'Set up an authenticator app' }).click();
      const authenticator = new Authenticator((await user.getByTestId('totp-secret').textContent()) ?? '');
      await user.getByLabel('Code from the app').fill(authenticator.nextCode(portal.clock));
      await user.getByRole('button', { name: 'Confirm the app' }).click();
      await user.getByRole('button', { name: 'I have saved them, continue' }).click();
      await expect(user).toHaveURL(`${portal.apps}/d/home`);
      await expect(user.getByText(name).first()).toBeVisible();
      await context.close();

      // The admin sees the invitation taken up.
      await page.reload();
      await page.getByLabel('Search by username, name or e-mail').fill(username);
      const userRow = page.getByRole('row').filter({ hasText: username });
      await expect(userRow.getByText('Active', { exact: true })).toBeVisible();
      await expect(userRow).toContainText('authenticator app');
    });

    test("an admin issues a consumer's link, the consumer signs in with it, and the admin finds that sign-in in the audit log by the consumer id", async ({
      page,
      browser,
      portal,
    }) => {
      const organization = await newOrganization(portal);
      const [consumer, neighbour] = [consumerRow(1), consumerRow(2)] as [ImportedConsumer, ImportedConsumer];
      const admin = await portal.createStaffUser('admin');
      await signInAsStaff(page, portal, 'a', admin);
      await openConsumers(page, organization.customerId);
      await importConsumers(page, consumersCsv([consumer, neighbour]));
      await expect(page.getByText('Imported 2 consumers: 2 new, 0 updated.')).toBeVisible();
      const mailing = `audit-${randomUUID().slice(0, 8)}`;
      const [letter] = await issueMailing(
        page,
        mailing,
        `consumerId,signInType,expiresAt\n${consumer.consumerId},PostalCode,${nextYear(portal)}\n`,
      );

      const context = await browser.newContext(desktop);
      const consumerPage = await context.newPage();
      await consumerPage.goto(letter?.link ?? '');
      const tenant = portal.tenant(organization.subdomain);
      await expect(consumerPage).toHaveURL(`${tenant}/c/verify-token`);
      await consumerPage.getByLabel('ZIP code').fill(consumer.postalCode);
      await consumerPage.getByRole('button', { name: 'Continue' }).click();
      await expect(consumerPage).toHaveURL(`${tenant}/c/mfa`);
      const codeMail = await portal.waitForMail(consumer.email, /verification code/i);
      await consumerPage.getByLabel('6-digit code').fill(/\b(\d{6})\b/.exec(codeMail.text)?.[1] ?? '');
      await consumerPage.getByRole('button', { name: 'Continue' }).click();
      await expect(consumerPage.getByTestId('signed-in-as')).toHaveText(consumer.name);
      await context.close();

      await openSection(page, 'Audit log');
      await page.getByLabel('Customer id').fill(String(organization.customerId));
      await page.getByLabel('Consumer id').fill(consumer.consumerId);
      await page.getByRole('button', { name: 'Show the rows' }).click();
      const rows = page.getByRole('table').getByRole('row');
      // The verification's answer, then the mailed code that signed the consumer in.
      await expect(rows.filter({ hasText: 'consumer.sign-in.lookup' })).toContainText('success');
      await expect(rows.filter({ hasText: 'consumer.sign-in.mfa' })).toContainText('success');
      // Only that consumer's rows: the neighbour imported with them has none, and the admin's own are left out.
      await expect(rows.filter({ hasText: 'operator.' })).toHaveCount(0);
      await page.getByLabel('Consumer id').fill(neighbour.consumerId);
      await page.getByRole('button', { name: 'Show the rows' }).click();
      await expect(page.getByText('No audit rows match these filters.')).toBeVisible();
    });
  });

  test.describe('on a phone', () => {
    test.use(phone);

    test('an import with one bad row names its line and writes nothing; fixed, it imports', async ({
      page,
      portal,
    }) => {
      const organization = await newOrganization(portal);
      const rows = [consumerRow(1), consumerRow(2), consumerRow(3)] as const;
      const admin = await portal.createStaffUser('admin');
      await signInAsStaff(page, portal, 'a', admin);
      await openConsumers(page, organization.customerId);

      const bad = consumersCsv([rows[0], { ...rows[1], email: 'not-an-email' }, rows[2]]);
      await importConsumers(page, bad);
      const alert = page.getByRole('form', { name: 'Import consumers' }).getByRole('alert');
      await expect(alert).toContainText('The file has 1 problem; nothing was written.');
      await expect(alert).toContainText('line 3, column 3 (email)');

      await openSection(page, 'Organizations');
      const row = await organizationRow(page, organization.name);
      await expect(row.getByRole('cell').nth(1)).toHaveText('0');

      await openSection(page, 'Consumers and mailings');
      await page.getByLabel('Customer id').fill(String(organization.customerId));
      await page.getByRole('button', { name: 'Show this organization' }).click();
      await importConsumers(page, consumersCsv([...rows]));
      await expect(page.getByText('Imported 3 consumers: 3 new, 0 updated.')).toBeVisible();

      await openSection(page, 'Organizations');
      await expect((await organizationRow(page, organization.name)).getByRole('cell').nth(1)).toHaveText('3');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    });

    test("an admin issues a mailing's links, downloads the letter links, and one opens at the consumer's verification", async ({
      page,
      browser,
      portal,
    }) => {
      const organization = await newOrganization(portal);
      const consumers = [consumerRow(1), consumerRow(2)] as const;
      const admin = await portal.createStaffUser('admin');
      await signInAsStaff(page, portal, 'a', admin);
      await openConsumers(page, organization.customerId);
      await importConsumers(page, consumersCsv([...consumers]));
      await expect(page.getByText('Imported 2 consumers: 2 new, 0 updated.')).toBeVisible();

      const mailing = `spring-${randomUUID().slice(0, 8)}`;
      const expiry = nextYear(portal);
      const letters = await issueMailing(
        page,
        mailing,
        'consumerId,signInType,target,targetId,expiresAt\n' +
          `${consumers[0].consumerId},PostalCode,2,77,${expiry}\n` +
          `${consumers[1].consumerId},DateOfBirth,,,${expiry}\n`,
      );
      const tenant = portal.tenant(organization.subdomain);
      expect(letters.map((letter) => [letter.consumerId, letter.signInType])).toEqual([
        [consumers[0].consumerId, 'PostalCode'],
        [consumers[1].consumerId, 'DateOfBirth'],
      ]);
      const [letter] = letters;
      expect(letter?.link).toBe(`${tenant}/${letter?.token}/2/77`);
      expect(letter?.shortLink).toBe(`${tenant}/${letter?.shortId}`);

      const mailingRow = page.getByRole('row').filter({ hasText: mailing });
      await expect(mailingRow.getByRole('cell').nth(2)).toHaveText('2');
      await expect(mailingRow.getByRole('cell').nth(3)).toHaveText('2');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

      // The consumer, in a browser of their own, with nothing of the admin's.
      const context = await browser.newContext(phone);
      const consumerPage = await context.newPage();
      await consumerPage.goto(letter?.link ?? '');
      await expect(consumerPage).toHaveURL(`${tenant}/c/verify-token`);
      await expect(consumerPage.getByLabel('ZIP code')).toBeVisible();
      await expect(consumerPage.getByText(organization.name).first()).toBeVisible();
      await context.close();
    });
  });

  for (const [width, use] of [
    ['320 px', phone],
    ['desktop', desktop],
  ] as const) {
    test.describe(`axe finds nothing at ${width}`, () => {
      test.use(use);

      /** axe's WCAG 2.1 AA rules on the page as it is now; on a phone, nothing scrolls sideways either. */
      function checker(page: Page, expectNoAxeViolations: () => Promise<void>) {
        return async () => {
          await expectNoAxeViolations();
          const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
          if (use === phone) expect(scrollWidth).toBeLessThanOrEqual(320);
        };
      }

      test('on the organizations and staff pages, their forms and confirmations', async ({
        page,
        portal,
        expectNoAxeViolations,
      }) => {
        const check = checker(page, expectNoAxeViolations);
        const organization = await newOrganization(portal);
        const admin = await portal.createStaffUser('admin');
        await signInAsStaff(page, portal, 'a', admin);
        await page.getByRole('link', { name: 'Console: organizations and staff' }).click();

        await expect(page.getByRole('heading', { name: 'Organizations' })).toBeVisible();
        await (await organizationRow(page, organization.name)).waitFor();
        await check();
        await page.getByRole('button', { name: 'New organization' }).click();
        await expect(page.getByRole('form', { name: 'New organization' })).toBeVisible();
        await check();
        await page.getByRole('button', { name: 'Cancel' }).click();
        await (await organizationRow(page, organization.name))
          .getByRole('button', { name: `Edit ${organization.name}` })
          .click();
        await expect(page.getByRole('form', { name: `Edit ${organization.name}` })).toBeVisible();
        await check();
        await page.getByRole('button', { name: 'Cancel' }).click();

        await openSection(page, 'Staff');
        await page.getByLabel('Search by username, name or e-mail').fill(admin.username);
        await expect(page.getByRole('row').filter({ hasText: admin.username })).toBeVisible();
        await check();
        await page.getByRole('button', { name: `Disable: ${admin.username}` }).click();
        await expect(page.getByText(`Disable ${admin.username}? Their open sessions end.`)).toBeVisible();
        await check();
        await page.getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('button', { name: 'Invite', exact: true }).click();
        await expect(page.getByRole('form', { name: 'Invite a staff user' })).toBeVisible();
        await check();
      });

      test('on the consumers, mailings and audit pages, their refusals and the step-up', async ({
        page,
        portal,
        expectNoAxeViolations,
      }) => {
        const check = checker(page, expectNoAxeViolations);
        await page.clock.install();
        const organization = await newOrganization(portal);
        const consumer = consumerRow(1);
        const admin = await portal.createStaffUser('admin');
        await signInAsStaff(page, portal, 'a', admin);
        await page.getByRole('link', { name: 'Console: organizations and staff' }).click();

        await openSection(page, 'Consumers and mailings');
        await expect(page.getByRole('heading', { name: 'Consumers and mailings' })).toBeVisible();
        await check();
        await page.getByLabel('Customer id').fill(String(organization.customerId));
        await page.getByRole('button', { name: 'Show this organization' }).click();
        await expect(page.getByText('This organization has no mailings yet.')).toBeVisible();
        await check();
        await importConsumers(page, consumersCsv([{ ...consumer, email: 'not-an-email' }]));
        await expect(page.getByRole('form', { name: 'Import consumers' }).getByRole('alert')).toBeVisible();
        await check();
        await importConsumers(page, consumersCsv([consumer]));
        await expect(page.getByText('Imported 1 consumers: 1 new, 0 updated.')).toBeVisible();
        const mailing = `axe-${randomUUID().slice(0, 8)}`;
        await issueMailing(
          page,
          mailing,
          `consumerId,signInType,expiresAt\n${consumer.consumerId},Last4Ssn,${nextYear(portal)}\n`,
        );
        await expect(page.getByRole('row').filter({ hasText: mailing })).toBeVisible();
        await check();
        await page.getByRole('button', { name: `Revoke ${mailing}` }).click();
        await expect(page.getByRole('button', { name: 'Revoke the links' })).toBeVisible();
        await check();
        // The sign-in's second factor is older than a change allows: the page asks for one again.
        // Both clocks move, so the page renews its token on its timer as it would have meanwhile.
        portal.clock.advanceMinutes(16);
        await page.clock.fastForward('16:00');
        await page.getByRole('button', { name: 'Revoke the links' }).click();
        await expect(page.getByRole('heading', { name: 'Confirm it is you' })).toBeFocused();
        await check();
        await page.getByLabel('Authenticator code').fill(admin.authenticator?.nextCode(portal.clock) ?? '');
        await page.getByRole('button', { name: 'Confirm', exact: true }).click();
        await expect(page.getByText(`Revoked 1 links of ${mailing}.`)).toBeVisible();

        await openSection(page, 'Audit log');
        await page.getByLabel('Customer id').fill(String(organization.customerId));
        await page.getByRole('button', { name: 'Show the rows' }).click();
        await expect(
          page.getByRole('table').getByRole('row').filter({ hasText: 'operator.links.issue' }),
        ).toBeVisible();
        await page
          .getByText(/^Details of row/)
          .first()
          .click();
        await check();
        await page.getByLabel('Event', { exact: false }).fill('no.such.event');
        await page.getByRole('button', { name: 'Show the rows' }).click();
        await expect(page.getByText('No audit rows match these filters.')).toBeVisible();
        await check();
      });
    });
  }
});
