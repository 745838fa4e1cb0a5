// @vitest-environment-options {"url": "http://sender.localhost:4173/c/verify-identity"}

import type { AppConfig } from '@entry/domain';
import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AppConfigProvider } from '../../config/app-config-context.tsx';
import { renderPortalPage } from '../../lib/session/portal-test-kit.tsx';
import { senderAccess } from '../../testing/fake-api.ts';
import { VerifyIdentityPage } from './verify-pages.tsx';

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: [],
  dashDomainMarkers: [],
};
const explanation = /please enter the last 4 digits of your Social Security number/;

function renderVerifyIdentity(access: { status: number; body?: unknown }) {
  return renderPortalPage(
    <AppConfigProvider config={config}>
      <VerifyIdentityPage />
    </AppConfigProvider>,
    { path: '/c/verify-identity', routes: { 'GET /api/auth/v1/access/sender': access } },
  );
}

describe('VerifyIdentityPage on a tenant host', () => {
  it('explains what it asks for while it looks up the organization, then shows the form', async () => {
    renderVerifyIdentity({ status: 200, body: senderAccess });
    expect(screen.getByRole('heading', { level: 1, name: 'Verify your identity' })).toBeTruthy();
    expect(screen.getByText(explanation)).toBeTruthy();
    expect(screen.getByRole('status').textContent).toBe('Loading…');

    expect(await screen.findByLabelText('ZIP code')).toBeTruthy();
    expect(screen.getByText(explanation)).toBeTruthy();
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('drops the explanation when the host has no organization', async () => {
    renderVerifyIdentity({ status: 404, body: { errorCode: 'ItemNotFound', message: '', errors: [] } });
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect(screen.queryByText(explanation)).toBeNull();
    expect(screen.queryByLabelText('ZIP code')).toBeNull();
  });
});
