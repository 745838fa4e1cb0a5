import { expect, signInAsStaff, test } from './support/portal-test.ts';

/** The console's data pages at phone width (issue 43): the tables stack, nothing scrolls sideways. */
test.describe('console data pages on a phone', () => {
  test.use({ viewport: { width: 320, height: 740 }, isMobile: true, hasTouch: true });

  test('an admin filters the audit log and pages through it', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    await portal.recordAuditRows('e2e.console.paging', 60);
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);

    await page.goto(`${portal.apps}/a/console/audit`);
    await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
    await page.getByLabel('Customer id').fill(String(portal.demo.tenant.customerId));
    await page.getByLabel('Event', { exact: false }).fill('e2e.console.paging');
    await page.getByRole('button', { name: 'Show the rows' }).click();

    const rows = page.getByRole('table').getByRole('row');
    // 50 rows and the header row; the newest first.
    await expect(rows).toHaveCount(51);
    await expect(rows.nth(1)).toContainText('consumer:59');
    await expectNoAxeViolations();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);

    await page.getByRole('button', { name: 'Older rows' }).click();
    await expect(page.getByRole('heading', { name: 'Page 2, newest first.' })).toBeFocused();
    await expect(rows).toHaveCount(11);
    await expect(rows.nth(1)).toContainText('consumer:9');
    await expect(page.getByRole('button', { name: 'Older rows' })).toBeDisabled();
    await page.getByRole('button', { name: 'Newer rows' }).click();
    await expect(rows.nth(1)).toContainText('consumer:59');
  });

  test('an admin uploads a consumers CSV with an error and sees its line; nothing is written', async ({
    page,
    portal,
    expectNoAxeViolations,
  }) => {
    const admin = await portal.createStaffUser('admin');
    await signInAsStaff(page, portal, 'a', admin);
    await page.goto(`${portal.apps}/a/console/consumers`);
    await page.getByLabel('Customer id').fill(String(portal.demo.tenant.customerId));
    await page.getByRole('button', { name: 'Show this organization' }).click();
    await expect(page.getByRole('heading', { name: 'Mailings', exact: true })).toBeVisible();
    await expectNoAxeViolations();

    const importForm = page.getByRole('form', { name: 'Import consumers' });
    await importForm.getByLabel('CSV file').setInputFiles({
      name: 'consumers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'consumerId,name,email,last4Ssn,postalCode,dateOfBirth\n' +
          'E2E-1,Ann One,ann@example.com,1111,50001,1981-01-01\n' +
          'E2E-2,Bob Two,not-an-email,2222,50002,1982-02-02\n',
      ),
    });
    await importForm.getByRole('button', { name: 'Import consumers' }).click();
    const alert = importForm.getByRole('alert');
    await expect(alert).toContainText('The file has 1 problem; nothing was written.');
    await expect(alert).toContainText('line 3, column 3 (email)');
    await expectNoAxeViolations();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
  });
});
