import type { Response } from '@playwright/test';
import { expect, test } from '../fixtures.ts';

/** The `async` module scripts index.html starts itself (apps/server/src/web.ts). */
function startedScripts(html: string): string[] {
  return [
    ...html.matchAll(/<script type="module" async fetchpriority="low" crossorigin src="([^"]+)"><\/script>/g),
  ].map((match) => match[1] ?? '');
}

test.describe('index.html on consumer pages', () => {
  test('starts zod, a chunk that imports nothing, which the page then uses without loading it again', async ({
    page,
    hosts,
  }) => {
    const chunks: Response[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.startsWith('/assets/zod-')) chunks.push(response);
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const document = await page.goto(`${hosts.tenant()}/c/verify-identity`);
    await expect(page.getByLabel('ZIP code')).toBeVisible();

    const [zod, ...others] = startedScripts((await document?.text()) ?? '');
    expect(others).toEqual([]);
    expect(zod).toMatch(/^\/assets\/zod-[\w-]+\.js$/);
    expect(chunks.map((response) => new URL(response.url()).pathname)).toEqual([zod]);
    expect(await chunks[0]?.text()).not.toMatch(/(?:from|import)\s*["']\.\/[^"']+\.js["']/);
    expect(errors).toEqual([]);
  });

  test('the entry page starts nothing of the portal', async ({ page, hosts }) => {
    const document = await page.goto(`${hosts.bare}/`);
    expect(startedScripts((await document?.text()) ?? '')).toEqual([]);
  });
});
