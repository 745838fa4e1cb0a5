// @vitest-environment-options {"url": "http://sender.localhost:4173/c/expired-link"}

import { type AppConfig, debtCollectorDisclosure } from '@entry/domain';
import { act, render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppConfigProvider } from '../../config/app-config-context.tsx';
import { rememberOrganization } from '../../lib/organization.ts';
import { installMatchMedia } from '../../testing/match-media.ts';
import { AuthCard, AuthLayout } from './auth-layout.tsx';

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: [],
  dashDomainMarkers: [],
};

function renderTenantPage() {
  installMatchMedia(1280);
  return render(
    <AppConfigProvider config={config}>
      <AuthLayout>
        <AuthCard title="This link has expired">
          <p>Page</p>
        </AuthCard>
      </AuthLayout>
    </AppConfigProvider>,
  );
}

describe("a tenant's page", () => {
  it("shows the product's name until the organization is known, then the organization's everywhere", async () => {
    renderTenantPage();
    expect(screen.getByRole('link', { name: 'Account Access' })).toBeTruthy();
    expect(document.title).toBe('This link has expired - Account Access');

    act(() =>
      rememberOrganization({
        subdomain: 'sender',
        target: 'http://sender.localhost:4173/c/',
        customerId: 1001,
        customerName: 'Sender Collections',
        contact: {
          phone: '(800) 555-0199',
          email: 'help@sender.example',
          hours: null,
          website: 'https://sender.example',
        },
        logoUrl: '/api/auth/v1/access/sender/logo/0123456789abcdef0123456789abcdef',
      }),
    );

    const brand = screen.getByRole('link', { name: 'Sender Collections' });
    expect(brand.querySelector('img')?.getAttribute('src')).toBe(
      '/api/auth/v1/access/sender/logo/0123456789abcdef0123456789abcdef',
    );
    expect(document.title).toBe('This link has expired - Sender Collections');

    const help = screen.getByRole('complementary', { name: 'Need help?' });
    expect(await within(help).findByRole('heading', { name: 'Contact Sender Collections' })).toBeTruthy();
    expect(within(help).getByRole('link', { name: '(800) 555-0199' }).getAttribute('href')).toBe(
      'tel:+18005550199',
    );

    const footer = screen.getByRole('contentinfo');
    expect(await within(footer).findByText('Sender Collections')).toBeTruthy();
    expect(within(footer).getByRole('link', { name: 'help@sender.example' }).getAttribute('href')).toBe(
      'mailto:help@sender.example',
    );
    expect(within(footer).getByRole('link', { name: 'sender.example' }).getAttribute('href')).toBe(
      'https://sender.example',
    );
    expect(within(footer).queryByText('Hours')).toBeNull();
    expect(within(footer).queryByText(debtCollectorDisclosure.en)).toBeNull();
    expect(within(footer).getByRole('link', { name: 'Privacy' }).getAttribute('href')).toBe('/privacy');
    // Kept for the tab: the next page load shows it without asking the server.
    expect(JSON.parse(sessionStorage.getItem('organization') ?? 'null')).toMatchObject({
      name: 'Sender Collections',
    });
  });

  it("carries the debt collector's disclosure in the footer of an organization that collects debts", async () => {
    renderTenantPage();
    act(() =>
      rememberOrganization({
        subdomain: 'sender',
        target: 'http://sender.localhost:4173/c/',
        customerId: 1001,
        customerName: 'Sender Collections',
        debtCollector: true,
      }),
    );
    const footer = screen.getByRole('contentinfo');
    expect(await within(footer).findByText(debtCollectorDisclosure.en)).toBeTruthy();
  });
});
