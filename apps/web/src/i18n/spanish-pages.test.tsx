// @vitest-environment-options {"url": "http://sender.localhost:4173/"}

import { type AppConfig, errorMessages } from '@entry/domain';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppRoutes } from '../app/router.tsx';
import { SnackBar } from '../components/snack-bar/snack-bar.tsx';
import { UpdateToast } from '../components/update-toast/update-toast.tsx';
import { AppConfigProvider } from '../config/app-config-context.tsx';
import { consumerApi } from '../lib/api-client.ts';
import type { AppUpdate } from '../lib/app-update.ts';
import { notifyInLanguage } from '../lib/client-notices.ts';
import { rememberLink } from '../lib/pending-verification.ts';
import { PortalServicesProvider } from '../lib/session/portal-api.ts';
import {
  authTokenResult,
  errorBody,
  fakeJwt,
  portalServicesFor,
  type ScriptedRoutes,
} from '../lib/session/portal-test-kit.tsx';
import { fakeApi, identityToken } from '../testing/fake-api.ts';
import { installMatchMedia } from '../testing/match-media.ts';
import { english } from './en.ts';
import { showLanguage } from './language.ts';

vi.mock('../lib/api-client.ts', () => ({ consumerApi: vi.fn() }));

const config: AppConfig = {
  domain: 'localhost',
  scheme: 'http',
  port: '4173',
  adminDomainMarkers: [],
  dashDomainMarkers: [],
};

const organization = {
  subdomain: 'sender',
  target: 'http://sender.localhost:4173/c/',
  customerId: 1001,
  customerName: 'Sender Collections',
  contact: { phone: '(800) 555-0199', email: 'help@sender.example', hours: 'Mon-Fri', website: null },
  debtCollector: true,
};
const linkToken = 'link-guid-1';
const linkData = {
  paymentAmount: 310.5,
  schedulePaymentAmount: 80,
  scheduleDownPayment: 25,
  scheduleInterval: null,
};
const subscriptionPath = 'GET /api/v1/communication/email/subscription/token/mail-token';
const subscriptionUpdatePath = 'POST /api/v1/communication/email/subscription';

/** Every English text of the catalogue, functions called with sample values. */
function englishTexts(value: unknown = english): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'function') {
    return [String(value(...Array.from({ length: value.length }, () => 'Sender Collections')))];
  }
  return Object.values(value as Record<string, unknown>).flatMap((inner) => englishTexts(inner));
}

/** An English text as a whole phrase: "Document" is not found inside "Documentos". */
function phrase(text: string): RegExp {
  return new RegExp(
    `(?<![\\p{L}\\p{N}])${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`,
    'u',
  );
}

const catalogueEnglish = englishTexts().filter((text) => text !== english.layout.locale);

/** What a person sees or hears on the page: its text, its accessible names and its title. */
function pageWords(): string {
  const labels = [...document.querySelectorAll('[aria-label]')].map((element) =>
    element.getAttribute('aria-label'),
  );
  return [document.title, document.body.textContent ?? '', ...labels].join('\n');
}

function expectNoEnglish() {
  const words = pageWords();
  const found = catalogueEnglish.filter((text) => phrase(text).test(words));
  expect(found, `English on a Spanish page:\n${words}`).toEqual([]);
  expect(document.documentElement.lang).toBe('es');
}

const consumerSession = (overrides: Record<string, unknown> = {}) =>
  authTokenResult({
    accessType: 'Consumer',
    accessToken: fakeJwt({
      user: { name: 'Morgan Consumer', context: { roleId: 3 } },
      tid: 1001,
      identityToken: linkToken,
    }),
    ...overrides,
  });

function renderSpanishPage(
  path: string,
  options: { state?: unknown; routes?: ScriptedRoutes; session?: 'full' | 'restricted' } = {},
) {
  const routes: ScriptedRoutes = {
    'GET /api/auth/v1/access/sender': { status: 200, body: organization },
    [`GET /api/auth/v1/consumers/token/${linkToken}`]: {
      status: 200,
      body: identityToken('Direct', { guid: linkToken, data: linkData }),
    },
    ...options.routes,
  };
  const services = portalServicesFor(routes);
  vi.mocked(consumerApi).mockReturnValue(fakeApi(routes as Parameters<typeof fakeApi>[0]).api);
  if (options.session === 'full') {
    services
      .api('consumer')
      .tokens.set(consumerSession() as Parameters<ReturnType<typeof services.api>['tokens']['set']>[0]);
  }
  if (options.session === 'restricted') {
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
  }
  const [pathname = '/', search = ''] = path.split('?');
  render(
    <AppConfigProvider config={config}>
      <PortalServicesProvider value={services}>
        <MemoryRouter
          initialEntries={[
            { pathname, search: search === '' ? '' : `?${search}`, state: options.state ?? null },
          ]}
        >
          <AppRoutes />
        </MemoryRouter>
      </PortalServicesProvider>
    </AppConfigProvider>,
  );
  return services;
}

/**
 * The page's heading, its help and the language switch, once they have loaded; and the
 * organization's footer, on every page that looks the organization up (the link landing leaves first).
 */
async function pageLoaded(title: string, { organizationKnown = true } = {}) {
  expect((await screen.findByRole('heading', { level: 1, name: title })).textContent).toBe(title);
  const help = screen.getByRole('complementary', { name: '¿Necesita ayuda?' });
  await within(help).findAllByRole('heading', { level: 3 });
  await screen.findByRole('button', { name: 'Español' });
  if (organizationKnown) {
    await within(screen.getByRole('contentinfo')).findByText(
      'Esta es una comunicación de un cobrador de deudas.',
    );
  }
}

const pending = (signInType: string, extra: Record<string, unknown> = {}) => ({
  pendingVerification: { token: linkToken, signInType, customerId: 1001, subdomain: 'sender', ...extra },
});

describe('every consumer page in Spanish', () => {
  beforeEach(async () => {
    installMatchMedia(1280);
    await showLanguage('es');
  });
  afterEach(() => vi.restoreAllMocks());

  it('the link landing, while it checks the link', async () => {
    renderSpanishPage(`/${linkToken}`, {
      routes: { [`GET /api/auth/v1/consumers/token/${linkToken}`]: () => new Promise(() => {}) as never },
    });
    await pageLoaded('Abriendo su enlace', { organizationKnown: false });
    expectNoEnglish();
  });

  it('the question of a link, its refusal with the tries left, and its lock with the local time', async () => {
    const user = userEvent.setup();
    const lockEnd = new Date(Date.now() + 3_600_000);
    renderSpanishPage('/c/verify-token', {
      state: pending('Last4Ssn'),
      routes: {
        'POST /api/auth/v1/consumer/sign-in/lookup': (body) =>
          (body as { last4Ssn?: string }).last4Ssn === '0000'
            ? { status: 409, body: { ...errorBody('InvalidSignIn'), triesLeft: 3 } }
            : { status: 403, body: { ...errorBody('UserLocked'), lockedUntil: lockEnd.toISOString() } },
      },
    });
    await pageLoaded('Confirme su identidad');
    await user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect((await screen.findAllByRole('alert'))[0]?.textContent).toContain('Escriba');
    expectNoEnglish();

    await user.type(screen.getByLabelText('Últimos 4 dígitos de su número de Seguro Social'), '0000');
    await user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByText(/Le quedan 3 intentos/)).toBeTruthy();
    expectNoEnglish();

    await user.clear(screen.getByLabelText('Últimos 4 dígitos de su número de Seguro Social'));
    await user.type(screen.getByLabelText('Últimos 4 dígitos de su número de Seguro Social'), '1111');
    await user.click(screen.getByRole('button', { name: 'Continuar' }));
    const localTime = new Intl.DateTimeFormat('es-US', { hour: 'numeric', minute: '2-digit' }).format(
      lockEnd,
    );
    expect((await screen.findByText(/la verificación se bloqueó/)).textContent).toContain(localTime);
    expectNoEnglish();
  });

  it('the three questions, with the months in Spanish', async () => {
    const user = userEvent.setup();
    renderSpanishPage('/c/verify-identity', { state: pending('None') });
    await pageLoaded('Verifique su identidad');
    expect(screen.getByRole('option', { name: '04 – abril' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Continuar' }));
    await screen.findByText('Elija el mes, el día y el año de su nacimiento.');
    expectNoEnglish();
  });

  it('the code page and a wrong code', async () => {
    const user = userEvent.setup();
    renderSpanishPage('/c/mfa', {
      session: 'restricted',
      routes: {
        'POST /api/auth/v1/consumer/sign-in/mfa': {
          status: 409,
          body: { ...errorBody('InvalidSignIn'), triesLeft: 1 },
        },
      },
    });
    await pageLoaded('Escriba su código');
    await user.type(screen.getByLabelText('Código de 6 dígitos'), '123456');
    await user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByText(/Ese código no es correcto.*Le queda 1 intento\./)).toBeTruthy();
    expectNoEnglish();
  });

  it('asks for the code mail in Spanish: the verification and a new code name the language', async () => {
    const user = userEvent.setup();
    const services = renderSpanishPage('/c/verify-token', {
      state: pending('PostalCode'),
      routes: {
        'POST /api/auth/v1/consumer/sign-in/lookup': {
          status: 200,
          body: { authToken: authTokenResult({ accessType: 'MfaPending', hasRestrictedAccess: true }) },
        },
        'POST /api/auth/v1/consumer/sign-in/mfa/resend': { status: 204 },
      },
    });
    await pageLoaded('Confirme su identidad');
    await user.type(screen.getByLabelText('Código postal (ZIP)'), '90210');
    await user.click(screen.getByRole('button', { name: 'Continuar' }));
    await pageLoaded('Escriba su código');
    const lookup = services.sent.find((call) => call.route === 'POST /api/auth/v1/consumer/sign-in/lookup');
    expect(lookup?.body).toMatchObject({ postalCode: '90210', language: 'es' });
  });

  it('the expired link', async () => {
    renderSpanishPage('/c/expired-link');
    await pageLoaded('Este enlace venció');
    expectNoEnglish();
  });

  it('the failed connection', async () => {
    renderSpanishPage('/c/failed-connection');
    await pageLoaded('No pudimos iniciar su sesión');
    expectNoEnglish();
  });

  it('the signed-out page of a Direct link', async () => {
    rememberLink(window.sessionStorage, {
      token: linkToken,
      signInType: 'Direct',
      customerId: 1001,
      subdomain: 'sender',
    });
    renderSpanishPage('/c/signed-out', { state: { signedOut: 'idle' } });
    await pageLoaded('Sesión cerrada');
    expectNoEnglish();
  });

  it('the portal, with amounts and times for the language', async () => {
    renderSpanishPage('/c/account-summary/42', { session: 'full' });
    await pageLoaded('Resumen de la cuenta');
    const data = await screen.findByTestId('link-data');
    expect(data.textContent).toContain('$310.50');
    expect(screen.getByTestId('session-ends').textContent).toMatch(/[ap]\. ?m\./);
    expectNoEnglish();
  });

  it('the privacy page', async () => {
    renderSpanishPage('/privacy');
    await pageLoaded('Privacidad');
    expectNoEnglish();
  });

  it('the e-mail preferences page', async () => {
    renderSpanishPage('/unsubscribe?token=mail-token', {
      routes: {
        [subscriptionPath]: {
          status: 200,
          body: {
            emailAddress: 'pat@example.com',
            unsubscribed: false,
            changedAt: '2026-03-01T10:00:00.000Z',
          },
        },
        [subscriptionUpdatePath]: {
          status: 200,
          body: {
            emailAddress: 'pat@example.com',
            unsubscribed: true,
            changedAt: '2026-03-01T10:00:00.000Z',
          },
        },
      },
    });
    await pageLoaded('Preferencias de correo electrónico');
    await screen.findByRole('button', { name: 'Suscribirse' });
    expectNoEnglish();
  });

  it('the e-mail preferences page opened without its link', async () => {
    renderSpanishPage('/unsubscribe');
    await pageLoaded('Preferencias de correo electrónico');
    expectNoEnglish();
  });

  it('the notices: a lost connection and an update', async () => {
    const waiting: AppUpdate = {
      start: () => () => {},
      subscribe: () => () => {},
      isUpdateWaiting: () => true,
      applyUpdate: async () => {},
      checkForUpdate: () => {},
    } as unknown as AppUpdate;
    render(
      <>
        <SnackBar />
        <UpdateToast appUpdate={waiting} />
      </>,
    );
    act(() => notifyInLanguage(errorMessages.connectionLost));
    await waitFor(() =>
      expect(
        screen.getByText('Se perdió la conexión con el servidor. Vuelva a iniciar sesión.'),
      ).toBeTruthy(),
    );
    expect(screen.getByRole('button', { name: 'Actualizar' })).toBeTruthy();
    expectNoEnglish();
  });
});
