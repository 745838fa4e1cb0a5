import { targetPaths } from '@entry/domain';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { MemoryRouter, Routes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { AppConfigProvider } from '../../config/app-config-context.tsx';
import { rememberLink } from '../../lib/pending-verification.ts';
import { PortalServicesProvider } from '../../lib/session/portal-api.ts';
import {
  authTokenResult,
  fakeJwt,
  portalServicesFor,
  type ScriptedRoutes,
} from '../../lib/session/portal-test-kit.tsx';
import { identityToken } from '../../testing/fake-api.ts';
import { consumerPortalRoutes } from './consumer-portal-routes.tsx';

const targetPagePaths = [...new Set(Object.values(targetPaths))].filter((path) => path !== '');
const config = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: [],
  dashDomainMarkers: [],
} as const;

const linkToken = 'link-guid-1';
const linkData = {
  paymentAmount: 310.5,
  schedulePaymentAmount: null,
  scheduleDownPayment: null,
  scheduleInterval: 'Weekly',
};

function renderPortal(
  path: string,
  options: { signedIn?: boolean; state?: unknown; routes?: ScriptedRoutes } = {},
) {
  const services = portalServicesFor({
    'GET /api/auth/v1/access/localhost': {
      status: 404,
      body: { errorCode: 'ItemNotFound', message: '', errors: [] },
    },
    [`GET /api/auth/v1/consumers/token/${linkToken}`]: {
      status: 200,
      body: identityToken('Direct', { guid: linkToken, data: linkData }),
    },
    ...options.routes,
  });
  if (options.signedIn === true) {
    services.api('consumer').tokens.set(
      authTokenResult({
        accessType: 'Consumer',
        accessToken: fakeJwt({
          user: { name: 'Morgan Consumer', context: { roleId: 3 } },
          tid: 1001,
          identityToken: linkToken,
        }),
      }) as Parameters<ReturnType<typeof services.api>['tokens']['set']>[0],
    );
  }
  render(
    <AppConfigProvider config={{ ...config, adminDomainMarkers: [], dashDomainMarkers: [] }}>
      <PortalServicesProvider value={services}>
        <MemoryRouter initialEntries={[{ pathname: path, state: options.state ?? null }]}>
          <Suspense fallback={null}>
            <Routes>{consumerPortalRoutes()}</Routes>
          </Suspense>
        </MemoryRouter>
      </PortalServicesProvider>
    </AppConfigProvider>,
  );
  return services;
}

describe('consumerPortalRoutes', () => {
  it.each(targetPagePaths.flatMap((path) => [`/c/${path}`, `/c/${path}/42`]))(
    'serves %s to a signed-in consumer, naming them',
    async (path) => {
      renderPortal(path, { signedIn: true });
      expect(await screen.findByRole('button', { name: 'Sign out' })).toBeTruthy();
      expect(screen.getByTestId('signed-in-as').textContent).toBe('Morgan Consumer');
      if (path.endsWith('/42')) expect(screen.getByText('42')).toBeTruthy();
    },
  );

  it("shows the page before it reads the link's payment data, then the data in place of a status", async () => {
    let callsWhenShown: string[] | undefined;
    const observer = new MutationObserver(() => {
      if (callsWhenShown !== undefined || document.querySelector('h1') === null) return;
      callsWhenShown = services.sent.map((call) => call.route);
      expect(screen.getByTestId('signed-in-as').textContent).toBe('Morgan Consumer');
      expect(screen.getByRole('status').textContent).toBe('Loading your account details…');
    });
    observer.observe(document.body, { childList: true, subtree: true });
    const services = renderPortal('/c/account-summary', { signedIn: true });
    expect(await screen.findByRole('heading', { level: 1, name: 'Account summary' })).toBeTruthy();
    observer.disconnect();
    expect(callsWhenShown).toBeDefined();
    expect(callsWhenShown).not.toContain(`GET /api/auth/v1/consumers/token/${linkToken}`);
    await waitFor(() => expect(screen.getByTestId('link-data').textContent).toContain('$310.50'));
    expect(screen.getByTestId('link-data').textContent).toContain('Weekly');
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('says when the account details cannot be loaded, and loads them on Try again', async () => {
    let connected = false;
    const services = renderPortal('/c/account-summary', {
      signedIn: true,
      routes: {
        [`GET /api/auth/v1/consumers/token/${linkToken}`]: () => {
          if (!connected) throw new TypeError('Failed to fetch');
          return { status: 200, body: identityToken('Direct', { guid: linkToken, data: linkData }) };
        },
      },
    });
    expect((await screen.findByRole('alert')).textContent).toMatch(
      /Your account details could not be loaded\..*cannot reach the server/,
    );
    expect(services.notified).toEqual([]);
    connected = true;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(screen.getByTestId('link-data').textContent).toContain('$310.50'));
  });

  it('sends a consumer without a session to verify-identity', async () => {
    renderPortal('/c/account-summary');
    expect(await screen.findByRole('heading', { level: 1, name: 'Verify your identity' })).toBeTruthy();
  });

  it('sends a consumer without a session whose link asks for a ZIP code to that question', async () => {
    rememberLink(window.sessionStorage, {
      token: 'guid',
      signInType: 'PostalCode',
      customerId: 1001,
      subdomain: 'sender',
    });
    renderPortal('/c/account-summary');
    expect(await screen.findByRole('heading', { level: 1, name: "Confirm it's you" })).toBeTruthy();
    expect(screen.getByLabelText('ZIP code')).toBeTruthy();
  });

  it('sends a consumer whose code step is open from a portal page to the code step', async () => {
    window.sessionStorage.setItem(
      'consumer-token',
      JSON.stringify({
        token: authTokenResult().accessToken,
        accessType: 'MfaPending',
        refreshAt: Date.now() + 600_000,
        expiresAt: Date.now() + 3_600_000,
        hasRestrictedAccess: true,
      }),
    );
    renderPortal('/c/documents');
    expect(await screen.findByRole('heading', { level: 1, name: 'Enter your code' })).toBeTruthy();
  });

  it('sends a code step without a pending verification to verify-identity', async () => {
    renderPortal('/c/mfa');
    expect(await screen.findByRole('heading', { level: 1, name: 'Verify your identity' })).toBeTruthy();
  });

  it('asks a link of one sign-in type for its one answer', async () => {
    renderPortal('/c/verify-token', {
      state: {
        pendingVerification: {
          token: 'guid',
          signInType: 'PostalCode',
          customerId: 1001,
          subdomain: 'sender',
        },
      },
    });
    expect(await screen.findByRole('heading', { level: 1, name: "Confirm it's you" })).toBeTruthy();
    expect(screen.getByLabelText('ZIP code')).toBeTruthy();
    expect(screen.queryByLabelText('Year')).toBeNull();
  });

  it.each([
    ['/c/expired-link', 'This link has expired'],
    ['/c/failed-connection', 'We could not sign you in'],
    ['/c/verify-token', 'Verify your identity'],
    ['/c/verify-identity', 'Verify your identity'],
  ])('serves %s without a session', async (path, title) => {
    renderPortal(path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeTruthy();
  });
});
