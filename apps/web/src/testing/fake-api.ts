import { type ApiClient, createApiClient } from '@entry/client';

interface SentRequest {
  method: string;
  url: URL;
  /** The JSON body, parsed; undefined without one. */
  body: unknown;
}

type Answer = { status: number; body?: unknown };

/**
 * A real API client over a scripted `fetch`: each route (`GET /api/...` without the query) answers
 * a status and a JSON body, or throws as a fetch without a connection does; anything unscripted
 * answers 599 so a test sees the stray request.
 */
export function fakeApi(routes: Record<string, Answer | (() => Answer | Promise<Answer>)>) {
  const sent: SentRequest[] = [];
  const notified: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input), 'http://sender.localhost:4173');
    const method = init?.method ?? 'GET';
    sent.push({ method, url, body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined });
    const route = routes[`${method} ${url.pathname}`];
    const answer =
      route === undefined ? { status: 599 } : typeof route === 'function' ? await route() : route;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
      headers: { 'Content-Type': 'application/json' },
    });
  };
  const api: ApiClient = createApiClient({
    scope: 'consumer',
    storage: window.sessionStorage,
    hooks: { notify: (message) => notified.push(message), goToRoot: () => {}, requestUpdateCheck: () => {} },
    fetch,
    locks: undefined,
  });
  return { api, sent, notified };
}

export function errorBody(errorCode: string, message = 'Refused.') {
  return { errorCode, message, errors: [] };
}

export function identityToken(signInType: string, overrides: Record<string, unknown> = {}) {
  return {
    guid: '3f0c7a52-5a5e-4a8e-9d38-6f0e4c1a2b3c',
    shortId: signInType === 'Direct' ? null : 'K7Q2M9X4TB',
    consumerId: 'c-1',
    customerId: 1001,
    source: 'letter',
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: '2026-12-31T00:00:00.000Z',
    lastUsedAt: null,
    signInType,
    data: null,
    ...overrides,
  };
}

export const senderAccess = {
  subdomain: 'sender',
  target: 'http://sender.localhost:4173/c/',
  customerId: 1001,
  customerName: 'Sender Collections',
};

export function authToken(overrides: Record<string, unknown> = {}) {
  return {
    accessToken: 'header.eyJ1c2VyIjp7ImNvbnRleHQiOnsicm9sZUlkIjozfX19.signature',
    accessTokenExpiresIn: 15,
    refreshToken: 'refresh',
    refreshTokenExpiresIn: 60,
    sessionGuid: 'session-123',
    accessType: 'Consumer',
    hasRestrictedAccess: false,
    ...overrides,
  };
}
