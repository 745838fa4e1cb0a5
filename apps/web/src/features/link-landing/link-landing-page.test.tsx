// @vitest-environment-options {"url": "http://sender.localhost:4173/"}
import type { AppConfig } from '@entry/domain';
import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppConfigProvider } from '../../config/app-config-context.tsx';
import { consumerApi } from '../../lib/api-client.ts';
import { browserNavigation } from '../../lib/navigation.ts';
import { authToken, fakeApi, identityToken, senderAccess } from '../../testing/fake-api.ts';
import { LinkLandingPage } from './link-landing-page.tsx';

vi.mock('../../lib/api-client.ts', () => ({ consumerApi: vi.fn() }));

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: ['admin'],
  dashDomainMarkers: ['dash'],
};
const token = '3f0c7a52-5a5e-4a8e-9d38-6f0e4c1a2b3c';

function ShowState() {
  const location = useLocation();
  return <p data-testid="landed">{`${location.pathname} ${JSON.stringify(location.state)}`}</p>;
}

function renderLink(path: string) {
  return render(
    <AppConfigProvider config={config}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path=":token/:target?/:targetId?" element={<LinkLandingPage />} />
          <Route path="c/*" element={<ShowState />} />
        </Routes>
      </MemoryRouter>
    </AppConfigProvider>,
  );
}

describe('LinkLandingPage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows a busy state, then replaces the link with the verification page, handed over in state', async () => {
    const fake = fakeApi({
      [`GET /api/auth/v1/consumers/token/${token}`]: { status: 200, body: identityToken('PostalCode') },
      'GET /api/auth/v1/access/sender': { status: 200, body: senderAccess },
    });
    vi.mocked(consumerApi).mockReturnValue(fake.api);
    renderLink(`/${token}/2`);
    expect(screen.getByRole('status').textContent).toMatch(/Checking your link/);
    const landed = await screen.findByTestId('landed');
    expect(landed.textContent).toBe(
      `/c/verify-token ${JSON.stringify({
        pendingVerification: { token, signInType: 'PostalCode', customerId: 1001, subdomain: 'sender' },
      })}`,
    );
  });

  it('leaves for the portal address after a Direct sign-in', async () => {
    const replace = vi.spyOn(browserNavigation, 'replace').mockImplementation(() => {});
    const fake = fakeApi({
      [`GET /api/auth/v1/consumers/token/${token}`]: { status: 200, body: identityToken('Direct') },
      'GET /api/auth/v1/access/sender': { status: 200, body: senderAccess },
      'POST /api/auth/v1/consumer/sign-in/identity-token': { status: 200, body: authToken() },
    });
    vi.mocked(consumerApi).mockReturnValue(fake.api);
    renderLink(`/${token}/1`);
    await vi.waitFor(() =>
      expect(replace).toHaveBeenCalledWith(
        'http://sender.localhost:4173/c/documents?session-guid=session-123',
      ),
    );
  });

  it('says when the server cannot be reached, and signs in with the same link after Try again', async () => {
    const replace = vi.spyOn(browserNavigation, 'replace').mockImplementation(() => {});
    let connected = false;
    const fake = fakeApi({
      [`GET /api/auth/v1/consumers/token/${token}`]: () => {
        if (!connected) throw new TypeError('Failed to fetch');
        return { status: 200, body: identityToken('Direct') };
      },
      'GET /api/auth/v1/access/sender': { status: 200, body: senderAccess },
      'POST /api/auth/v1/consumer/sign-in/identity-token': { status: 200, body: authToken() },
    });
    vi.mocked(consumerApi).mockReturnValue(fake.api);
    renderLink(`/${token}/1`);

    expect((await screen.findByRole('alert')).textContent).toMatch(/cannot reach the server/);
    expect(fake.notified).toEqual([]);
    connected = true;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));

    await vi.waitFor(() =>
      expect(replace).toHaveBeenCalledWith(
        'http://sender.localhost:4173/c/documents?session-guid=session-123',
      ),
    );
  });

  it('tries the link again by itself when the browser comes back online', async () => {
    let connected = false;
    const fake = fakeApi({
      [`GET /api/auth/v1/consumers/token/${token}`]: () => {
        if (!connected) throw new TypeError('Failed to fetch');
        return { status: 200, body: identityToken('DateOfBirth') };
      },
      'GET /api/auth/v1/access/sender': { status: 200, body: senderAccess },
    });
    vi.mocked(consumerApi).mockReturnValue(fake.api);
    renderLink(`/${token}`);
    await screen.findByRole('button', { name: 'Try again' });

    connected = true;
    act(() => {
      window.dispatchEvent(new Event('online'));
    });

    expect((await screen.findByTestId('landed')).textContent).toMatch(/^\/c\/verify-token /);
  });
});
