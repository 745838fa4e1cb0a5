import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { expect, test } from '../fixtures.ts';

/**
 * A new version is deployed while the page is open. What is simulated: the "new build" is the
 * same build with a changed service worker script (a byte-different sw.js is what makes a browser
 * install a new worker), with its `.br` and `.gz` written again as the build writes them, since
 * those are what the server sends; the update server serves a copy of the build, so no other test
 * sees it.
 */
function writeServiceWorker(swFile: string, content: string): void {
  writeFileSync(swFile, content);
  if (existsSync(`${swFile}.br`)) writeFileSync(`${swFile}.br`, brotliCompressSync(content));
  if (existsSync(`${swFile}.gz`)) writeFileSync(`${swFile}.gz`, gzipSync(content));
}

test('a new build shows the persistent Update Available toast; Refresh loads it at the root', async ({
  page,
  updateServer,
  expectNoAxeViolations,
}) => {
  const swFile = path.join(updateServer.webDist, 'sw.js');
  const originalSw = readFileSync(swFile, 'utf8');
  try {
    const { hosts } = updateServer;
    await page.goto(`${hosts.bare}/unsubscribe`);
    // The first visit installs the worker once the app is stable; the second is controlled by it.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await expect(page.getByText('Update Available')).toHaveCount(0);

    writeServiceWorker(swFile, `${originalSw}\n// new build ${Date.now()}\n`);
    await page.evaluate(() => {
      // A session without a role or restriction must not outlive the update; one with a role stays.
      const record = (payload: object, hasRestrictedAccess: boolean) =>
        JSON.stringify({
          token: `h.${btoa(JSON.stringify(payload)).replace(/=+$/, '')}.s`,
          accessType: 'Consumer',
          refreshAt: 0,
          expiresAt: 0,
          hasRestrictedAccess,
        });
      sessionStorage.setItem('consumer-token', record({ user: { context: {} } }, false));
      sessionStorage.setItem('customer-token', record({ user: { context: { roleId: 4 } } }, false));
      // The tab coming back into view is one of the moments the app looks for a new version.
      document.dispatchEvent(new Event('visibilitychange'));
    });

    const toast = page.getByRole('alert').filter({ hasText: 'Update Available' });
    await expect(toast).toBeVisible();
    await expectNoAxeViolations();
    // Persistent: still there well after a snack-bar message would have gone.
    await page.waitForTimeout(3500);
    await expect(toast).toBeVisible();

    const cachesBefore = await page.evaluate(() => caches.keys());
    expect(cachesBefore.length).toBeGreaterThan(0);
    await Promise.all([
      page.waitForEvent('framenavigated'),
      toast.getByRole('button', { name: 'Refresh' }).click(),
    ]);
    await page.waitForURL(`${hosts.bare}/`);
    await expect(page.getByRole('heading', { level: 1, name: 'Enter Domain' })).toBeVisible();
    const after = await page.evaluate(() => ({
      consumer: sessionStorage.getItem('consumer-token'),
      customer: sessionStorage.getItem('customer-token'),
    }));
    expect(after.consumer).toBeNull();
    expect(after.customer).not.toBeNull();
    await expect(page.getByText('Update Available')).toHaveCount(0);
  } finally {
    writeServiceWorker(swFile, originalSw);
  }
});
