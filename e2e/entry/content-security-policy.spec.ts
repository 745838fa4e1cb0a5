import { expect, test } from '../fixtures.ts';

/**
 * The server sends a strict Content-Security-Policy (no 'unsafe-eval'); a page that breaks it loses
 * what was refused and shows an issue in DevTools and Lighthouse's best practices.
 */
test.describe('the Content-Security-Policy', () => {
  test.beforeEach(async ({ page }) => {
    await page.addInitScript(
      `window.cspViolations = [];
       document.addEventListener('securitypolicyviolation', (event) =>
         window.cspViolations.push(event.violatedDirective + ' ' + event.sourceFile));`,
    );
  });
  const violations = (page: import('@playwright/test').Page) =>
    page.evaluate(() => (window as Window & { cspViolations?: string[] }).cspViolations);

  test('holds on the picker and on the verification page, which builds the API schemas', async ({
    page,
    hosts,
  }) => {
    const picker = await page.goto(`${hosts.bare}/`);
    expect(picker?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    expect(await violations(page)).toEqual([]);

    await page.goto(`${hosts.tenant()}/c/verify-identity`);
    await expect(page.getByLabel('ZIP code')).toBeVisible();
    expect(await violations(page)).toEqual([]);
  });
});
