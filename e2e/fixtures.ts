import { readFileSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { mainPort, runDir, updatePort } from './playwright.config.ts';

/** The demo data (docs/rules.md#demo-data), as the server wrote it when it seeded its database. */
export interface DemoData {
  baseUrl: string;
  domain: string;
  tenant: { subdomain: string; customerId: number; customerName: string };
  identityTokens: Record<'direct' | 'last4Ssn' | 'postalCode' | 'dateOfBirth' | 'none' | 'expired', string>;
  emailSubscription: { token: string; emailAddress: string };
}

function readDemo(serverName: string): DemoData {
  return JSON.parse(readFileSync(path.join(runDir, `${serverName}-data`, 'demo.json'), 'utf8')) as DemoData;
}

/** The WCAG 2.1 AA rules of axe-core. */
const wcag21aa = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface Hosts {
  /** `http://localhost:PORT`: the bare domain, which shows the picker. */
  bare: string;
  /** `http://apps.localhost:PORT`. */
  apps: string;
  /** `http://{subdomain}.localhost:PORT`. */
  tenant(subdomain?: string): string;
}

function hostsFor(port: number, demo: () => DemoData): Hosts {
  return {
    bare: `http://localhost:${port}`,
    apps: `http://apps.localhost:${port}`,
    tenant: (subdomain = demo().tenant.subdomain) => `http://${subdomain}.localhost:${port}`,
  };
}

export const test = base.extend<{
  demo: DemoData;
  hosts: Hosts;
  /** The server whose build the update test changes, with its own demo data. */
  updateServer: { demo: DemoData; hosts: Hosts; webDist: string };
  /** Fails the test when axe-core finds a WCAG 2.1 AA violation on the page as it is now. */
  expectNoAxeViolations: (page?: Page) => Promise<void>;
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  demo: async ({}, use) => {
    await use(readDemo('main'));
  },
  hosts: async ({ demo }, use) => {
    await use(hostsFor(mainPort, () => demo));
  },
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this pattern.
  updateServer: async ({}, use) => {
    const demo = readDemo('update');
    await use({
      demo,
      hosts: hostsFor(updatePort, () => demo),
      webDist: path.join(runDir, 'update-web-dist'),
    });
  },
  expectNoAxeViolations: async ({ page }, use) => {
    await use(async (target = page) => {
      const results = await new AxeBuilder({ page: target }).withTags(wcag21aa).analyze();
      const summary = results.violations.map(
        (violation) =>
          `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target).join(', ')})`,
      );
      expect(summary).toEqual([]);
    });
  },
});

export { expect };
