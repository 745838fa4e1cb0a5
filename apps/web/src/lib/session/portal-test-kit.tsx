import { type ApiClient, createApiClient } from '@entry/client';
import { authTokenResultSchema, createTokenRecord, type Scope, tokenStorageKey } from '@entry/domain';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import { PortalServicesProvider } from './portal-api.ts';
import { observeStorage } from './session-storage.ts';

/** `text` answers as it is (a CSV download) instead of `body` as JSON. */
export type Answer = { status: number; body?: unknown; text?: string; headers?: Record<string, string> };
export type ScriptedRoutes = Record<string, Answer | ((body: unknown) => Answer)>;

interface SentCall {
  route: string;
  /** The JSON body parsed, or a body of another type (a CSV upload) as its text. */
  body: unknown;
  /** The query, without its `?`, when the call has one. */
  query?: string;
}

/** An unsigned JWT whose payload is `payload`: enough for the pages, which only decode it. */
export function fakeJwt(payload: Record<string, unknown>): string {
  const encode = (value: unknown) =>
    btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${encode({ alg: 'EdDSA' })}.${encode(payload)}.signature`;
}

export function authTokenResult(overrides: Record<string, unknown> = {}) {
  return {
    accessToken: fakeJwt({ user: { name: 'Ada Admin', context: { roleId: 1 } }, tid: null }),
    accessTokenExpiresIn: 15,
    refreshToken: 'refresh',
    refreshTokenExpiresIn: 60,
    sessionGuid: 'session-1',
    accessType: 'Admin',
    hasRestrictedAccess: false,
    ...overrides,
  };
}

/** Stores a session of the scope in the tab, as a sign-in answering `authTokenResult(overrides)` would. */
export function storeSession(scope: Scope, overrides: Record<string, unknown> = {}): void {
  const result = authTokenResultSchema.parse(authTokenResult(overrides));
  window.sessionStorage.setItem(
    tokenStorageKey(scope),
    JSON.stringify(createTokenRecord(result, Date.now())),
  );
}

export function errorBody(errorCode: string) {
  return { errorCode, message: 'Refused.', errors: [] };
}

/** Shows where the app navigated, so a test can assert on it. */
function LocationProbe() {
  const location = useLocation();
  return <div data-testid="location">{`${location.pathname}${location.search}`}</div>;
}

/**
 * Real API clients over session storage whose `fetch` answers from `routes` (`POST /api/...`
 * without the query); anything unscripted answers 599 so a stray call shows.
 */
export function portalServicesFor(routes: ScriptedRoutes = {}) {
  const sent: SentCall[] = [];
  /** Each sent call's `Authorization` header (null without one), in the order of `sent`. */
  const authorizations: (string | null)[] = [];
  const notified: string[] = [];
  const storage = observeStorage(window.sessionStorage);
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), 'http://apps.localhost');
    const route = `${init?.method ?? 'GET'} ${url.pathname}`;
    const headers = new Headers(init?.headers);
    const type = headers.get('content-type') ?? 'application/json';
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const body = text !== undefined && type.includes('json') ? JSON.parse(text) : text;
    sent.push({ route, body, ...(url.search === '' ? {} : { query: url.search.slice(1) }) });
    authorizations.push(headers.get('authorization'));
    const scripted = routes[route];
    const answer =
      scripted === undefined ? { status: 599 } : typeof scripted === 'function' ? scripted(body) : scripted;
    if (answer.text !== undefined) {
      return new Response(answer.text, { status: answer.status, headers: { 'Content-Type': 'text/csv' } });
    }
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'Content-Type': 'application/json', ...answer.headers },
    });
  };
  const clients = new Map<Scope, ApiClient>();
  const hooks = () => ({
    notify: (message: string) => notified.push(message),
    goToRoot: () => {},
    requestUpdateCheck: () => {},
  });
  const api = (scope: Scope) => {
    let client = clients.get(scope);
    if (client === undefined) {
      client = createApiClient({
        scope,
        storage,
        hooks: hooks(),
        fetch,
        locks: undefined,
      });
      clients.set(scope, client);
    }
    return client;
  };
  return { api, storage, fetch, hooks, sent, authorizations, notified };
}

/** Renders a portal page at `path` (see `portalServicesFor`), with where it navigated in `location`. */
export function renderPortalPage(
  element: ReactNode,
  options: { path: string; pattern?: string; routes?: ScriptedRoutes; state?: unknown },
) {
  const { api, storage, fetch, hooks, sent, authorizations, notified } = portalServicesFor(options.routes);
  const result = render(
    <PortalServicesProvider value={{ api, storage, fetch, hooks }}>
      <MemoryRouter
        initialEntries={[
          {
            pathname: options.path.split('?')[0] ?? '/',
            search: options.path.includes('?') ? `?${options.path.split('?')[1]}` : '',
            state: options.state ?? null,
          },
        ]}
      >
        <Routes>
          <Route path={options.pattern ?? options.path.split('?')[0]} element={element} />
          <Route path="*" element={null} />
        </Routes>
        <LocationProbe />
      </MemoryRouter>
    </PortalServicesProvider>,
  );
  return { ...result, sent, authorizations, notified, api };
}
