import { defineConfig, devices } from '@playwright/test';
import suite from '../playwright.config.ts';

/**
 * The portal specs alone (`npx playwright test -c e2e/portal/playwright.config.ts`): they start a
 * server of their own per worker, so the suite's shared servers are not needed here.
 */
export default defineConfig({
  ...suite,
  testDir: '.',
  // Its own results folder: a suite run elsewhere in the tree cleans the shared one.
  outputDir: 'test-results',
  // Each worker starts a server of its own first; a busy machine needs the room.
  timeout: 60_000,
  projects: [{ name: 'portal', use: { ...devices['Desktop Chrome'] } }],
  webServer: [],
});
