import { expect, test } from '../fixtures.ts';

test.describe('help panel', () => {
  test('at 375 px it is a closed overlay, opened by Need help? and closed by Escape or its button', async ({
    page,
    hosts,
    expectNoAxeViolations,
  }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${hosts.bare}/`);
    const trigger = page.getByRole('button', { name: 'Need help?' });
    await expect(trigger).toBeVisible();
    await expect(page.getByRole('heading', { name: 'Need help?' })).toBeHidden();

    await trigger.click();
    const dialog = page.getByRole('dialog', { name: 'Need help?' });
    await expect(dialog).toBeVisible();
    const box = await dialog.boundingBox();
    expect(box?.width).toBeLessThanOrEqual(480);
    await expect(page.getByRole('button', { name: 'Close help' })).toBeFocused();
    await expectNoAxeViolations();

    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(trigger).toBeFocused();

    await trigger.click();
    await page.getByRole('button', { name: 'Close help' }).click();
    await expect(dialog).toBeHidden();
    await expectNoAxeViolations();
  });

  test('at 1280 px it is docked beside the content and open', async ({
    page,
    hosts,
    expectNoAxeViolations,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${hosts.bare}/`);
    const panel = page.getByRole('complementary', { name: 'Need help?' });
    await expect(panel).toBeVisible();
    const [panelBox, cardBox] = await Promise.all([
      panel.boundingBox(),
      page.locator('.auth-card').boundingBox(),
    ]);
    expect(panelBox?.width).toBeLessThanOrEqual(480);
    expect((panelBox?.x ?? 0) >= (cardBox?.x ?? 0) + (cardBox?.width ?? 0)).toBe(true);
    await expectNoAxeViolations();

    // Narrowing the window turns it into a closed overlay; widening docks it open again.
    await page.setViewportSize({ width: 1000, height: 800 });
    await expect(page.getByRole('heading', { name: 'Need help?' })).toBeHidden();
    await page.setViewportSize({ width: 1024, height: 800 });
    await expect(panel).toBeVisible();
  });

  test('works with the keyboard alone', async ({ page, hosts }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto(`${hosts.bare}/`);
    // The app renders its first screen after the load event; a keyboard user tabs once it shows.
    await expect(page.getByRole('textbox', { name: 'Domain' })).toBeVisible();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Need help?' })).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('dialog', { name: 'Need help?' })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('textbox', { name: 'Domain' })).toBeFocused();
  });
});
