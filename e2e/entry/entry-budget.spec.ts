import { gzipSync } from 'node:zlib';
import { expect, test } from '../fixtures.ts';

/** docs/rules.md#budgets: the JavaScript the entry page loads before it is usable, gzipped. */
const entryBudgetBytes = 90 * 1024;

test('the domain picker is usable after at most 90 KB of gzipped JavaScript', async ({ page, hosts }) => {
  const scripts = new Map<string, number>();
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return;
    scripts.set(response.url(), gzipSync(await response.body(), { level: 9 }).length);
  });
  await page.goto(`${hosts.bare}/`);
  await expect(page.getByRole('textbox', { name: 'Domain' })).toBeEditable();
  const total = [...scripts.values()].reduce((sum, size) => sum + size, 0);
  test.info().annotations.push({
    type: 'entry JavaScript (gzip)',
    description: `${(total / 1024).toFixed(1)} KB in ${scripts.size} files: ${[...scripts.keys()]
      .map((url) => new URL(url).pathname)
      .join(', ')}`,
  });
  expect(total).toBeLessThanOrEqual(entryBudgetBytes);
});
