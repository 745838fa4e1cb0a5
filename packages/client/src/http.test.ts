import { type ErrorCode, errorMessages, type Scope, storageKeys } from '@entry/domain';
import { describe, expect, it, vi } from 'vitest';
import { type ApiClientOptions, createApiClient } from './api-client.ts';
import { ApiError, isUnreachable } from './api-error.ts';
import {
  authTokenResult,
  deferred,
  errorBody,
  fakeLockManager,
  json,
  manualClock,
  memoryStorage,
  type Responder,
  recordingHooks,
  type SentRequest,
  scriptedFetch,
  settled,
} from './test-support.ts';

const launchResult = { token: 'launch-token' };

function setup(respond: Responder, options: { scope?: Scope; locks?: LockManager } = {}) {
  const storage = memoryStorage();
  const clock = manualClock();
  const hooks = recordingHooks();
  const fetch = scriptedFetch(respond);
  const clientOptions: ApiClientOptions = {
    scope: options.scope ?? 'admin',
    storage,
    hooks,
    fetch,
    now: clock.now,
    locks: options.locks,
  };
  const client = createApiClient(clientOptions);
  /** Signs in as if a 15-minute access token and a 60-minute refresh token had been issued now. */
  const signedIn = (accessToken = 'token-1', scope: Scope = clientOptions.scope) =>
    client.tokens.set(authTokenResult({ accessToken, sessionGuid: 'session-1' }), { scope });
  return { storage, clock, hooks, fetch, client, signedIn };
}

const refreshPath = (scope: Scope) => `/api/auth/v1/${scope}/refresh`;
const isRefresh = (request: SentRequest) => request.url.pathname.endsWith('/refresh');
const bearerOf = (request: SentRequest | undefined) => request?.headers.get('Authorization');

async function rejectionOf(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe('request headers', () => {
  it('sends JSON, the session guid and the bearer token when they exist', async () => {
    const { client, fetch, signedIn } = setup(() => json(launchResult));
    signedIn('abc');

    await client.launch.customer(1001);

    const headers = fetch.sent[0]?.headers;
    expect(headers?.get('Content-Type')).toBe('application/json');
    expect(headers?.get('session-guid')).toBe('session-1');
    expect(headers?.get('Authorization')).toBe('Bearer abc');
  });

  it('sends JSON only when there is no session', async () => {
    const { client, fetch } = setup(() =>
      json({
        subdomain: 'sender',
        target: 'http://sender.localhost:8080/c/',
        customerId: 1,
        customerName: 'S',
      }),
    );

    await client.access.bySubdomain('sender');

    const headers = fetch.sent[0]?.headers;
    expect(headers?.get('Content-Type')).toBe('application/json');
    expect(headers?.has('session-guid')).toBe(false);
    expect(headers?.has('Authorization')).toBe(false);
  });

  it('sends calls to the base URL', async () => {
    const { storage, hooks } = setup(() => json(launchResult));
    const fetch = scriptedFetch(() => json(launchResult));
    const client = createApiClient({ scope: 'admin', storage, hooks, fetch, baseUrl: 'http://api.test' });

    await client.launch.dashBilling(5);

    expect(fetch.sent[0]?.url.href).toBe('http://api.test/api/auth/v1/launch/dashbilling/5');
  });
});

describe('an expired session', () => {
  it('is ended before the call: message, token removed, back to the root, not-authorized error, nothing sent', async () => {
    const { client, clock, fetch, hooks, signedIn } = setup(() => json(launchResult));
    signedIn();
    clock.advanceMinutes(61);

    const error = await rejectionOf(client.launch.customer(1001));

    expect(error.kind).toBe('notAuthorized');
    expect(error.message).toBe(errorMessages.tokenExpired);
    expect(hooks.notified).toEqual([errorMessages.connectionLost]);
    expect(hooks.wentToRoot).toBe(1);
    expect(client.tokens.get()).toBeNull();
    expect(fetch.sent).toHaveLength(0);
  });

  it('is ended the same way by a 401 on a call sent with a bearer token', async () => {
    const { client, hooks, signedIn } = setup(() => json(errorBody('NotAuthorized'), 401));
    signedIn();

    const error = await rejectionOf(client.launch.customer(1001));

    expect(error).toMatchObject({ kind: 'notAuthorized', message: errorMessages.tokenExpired, status: 401 });
    expect(hooks.notified).toEqual([errorMessages.connectionLost]);
    expect(hooks.wentToRoot).toBe(1);
    expect(hooks.updateChecks).toBe(1);
    expect(client.tokens.get()).toBeNull();
  });

  it('is announced once when several calls get a 401 together', async () => {
    const { client, hooks, signedIn } = setup(() => json(errorBody('NotAuthorized'), 401));
    signedIn();

    const errors = await Promise.all([1, 2, 3].map((id) => rejectionOf(client.launch.customer(id))));

    expect(errors.map((error) => error.kind)).toEqual(['notAuthorized', 'notAuthorized', 'notAuthorized']);
    expect(hooks.notified).toEqual([errorMessages.connectionLost]);
    expect(hooks.wentToRoot).toBe(1);
  });

  it('does not stop a call anyone may make: the expired token is just not sent', async () => {
    const { client, clock, fetch, hooks, signedIn } = setup(() => json(errorBody('ItemNotFound'), 404), {
      scope: 'consumer',
    });
    signedIn();
    clock.advanceMinutes(61);

    const error = await rejectionOf(client.identityTokens.get('some-guid'));

    expect(error.kind).toBe('listed');
    expect(bearerOf(fetch.sent[0])).toBeNull();
    expect(hooks.wentToRoot).toBe(0);
    expect(hooks.notified).not.toContain(errorMessages.connectionLost);
  });
});

describe('a sign-in call', () => {
  it('rethrows its 401 as a listed error for its page, without ending anything or a message', async () => {
    const { client, hooks, signedIn } = setup(() => json(errorBody('InvalidSignIn'), 401));
    signedIn('still-mine');

    const error = await rejectionOf(client.adminAuth.signIn({ username: 'ann', password: 'wrong' }));

    expect(error).toMatchObject({ kind: 'listed', status: 401, errorCode: 'InvalidSignIn' });
    expect(error.message).toBe(errorMessages.listedStatus);
    expect(hooks.notified).toEqual([]);
    expect(hooks.wentToRoot).toBe(0);
    expect(client.tokens.get()?.token).toBe('still-mine');
  });

  it.each<[string, number, ErrorCode]>([
    ['a wrong answer', 409, 'InvalidSignIn'],
    ['a locked link', 403, 'UserLocked'],
    ['a server failure', 500, 'Unknown'],
  ])(
    'leaves %s (%i %s) to its page: no snack-bar message, but an update check',
    async (_case, status, code) => {
      const { client, hooks } = setup(() => json(errorBody(code), status), { scope: 'consumer' });

      const error = await rejectionOf(
        client.consumerAuth.lookupSignIn({ subdomain: 'sender', customerId: 1001, last4Ssn: '9999' }),
      );

      expect(error.status).toBe(status);
      expect(hooks.notified).toEqual([]);
      expect(hooks.updateChecks).toBe(1);
    },
  );

  it("treats a 401 of the MFA step, sent with the restricted token, as its page's", async () => {
    const { client, hooks } = setup(() => json(errorBody('NotAuthorized'), 401), { scope: 'consumer' });
    client.tokens.set(authTokenResult({ hasRestrictedAccess: true, accessType: 'MfaPending' }));

    const error = await rejectionOf(client.consumerAuth.mfaSignIn('123456'));

    expect(error).toMatchObject({ kind: 'listed', status: 401 });
    expect(hooks.notified).toEqual([]);
    expect(client.tokens.get()).not.toBeNull();
  });

  it('stores the token under the scope and the session guid, whatever token was there', async () => {
    const issued = authTokenResult({
      accessToken: 'fresh',
      sessionGuid: 'new-session',
      accessType: 'Customer',
    });
    const { client, clock, storage, signedIn } = setup(() => json(issued), { scope: 'customer' });
    signedIn('old');
    clock.advanceMinutes(90);

    const result = await client.customerAuth.signIn({ username: 'ann', password: 'secret' });

    expect(result).toEqual(issued);
    expect(client.tokens.state()).toMatchObject({ token: 'fresh', stale: false, expired: false });
    expect(storage.entries()[storageKeys.sessionGuid]).toBe('new-session');
  });
});

describe('a stale token', () => {
  it('is refreshed once for five concurrent calls, which then go out with the new token', async () => {
    const refreshAnswer = deferred<Response>();
    const { client, clock, fetch, signedIn } = setup((request) =>
      isRefresh(request) ? refreshAnswer.promise : json(launchResult),
    );
    signedIn('old');
    clock.advanceMinutes(12);

    const calls = [1, 2, 3, 4, 5].map((id) => client.launch.customer(id));
    await settled();
    expect(fetch.sent.map((request) => request.url.pathname)).toEqual([refreshPath('admin')]);
    refreshAnswer.resolve(json(authTokenResult({ accessToken: 'new', accessType: 'Admin' })));
    await Promise.all(calls);

    const refreshes = fetch.sent.filter(isRefresh);
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]?.url.pathname).toBe(refreshPath('admin'));
    expect(bearerOf(refreshes[0])).toBe('Bearer old');
    const launches = fetch.sent.filter((request) => !isRefresh(request));
    expect(launches.map(bearerOf)).toEqual(Array(5).fill('Bearer new'));
    expect(client.tokens.state()).toMatchObject({ token: 'new', stale: false });
  });

  it('shares one refresh between callers that ask for it at the same time', async () => {
    const refreshAnswer = deferred<Response>();
    const { client, fetch, signedIn } = setup(() => refreshAnswer.promise);
    signedIn('old');

    const refreshes = [client.adminAuth.refresh(), client.auth.refresh(), client.adminAuth.refresh()];
    await settled();
    refreshAnswer.resolve(json(authTokenResult({ accessToken: 'new', accessType: 'Admin' })));
    await Promise.all(refreshes);

    expect(fetch.sent).toHaveLength(1);
    expect(client.tokens.get()?.token).toBe('new');
  });

  it('does not bring back a session signed out while its refresh was on its way', async () => {
    const refreshAnswer = deferred<Response>();
    const { client, signedIn } = setup((request) =>
      isRefresh(request) ? refreshAnswer.promise : new Response(null, { status: 204 }),
    );
    signedIn('old');

    const refreshing = client.adminAuth.refresh();
    await settled();
    await client.adminAuth.signOut();
    refreshAnswer.resolve(json(authTokenResult({ accessToken: 'new', accessType: 'Admin' })));
    await refreshing;

    expect(client.tokens.get()).toBeNull();
  });

  it('makes calls with a fresh token wait while a refresh is in flight', async () => {
    const refreshAnswer = deferred<Response>();
    const { client, fetch, signedIn } = setup((request) =>
      isRefresh(request) ? refreshAnswer.promise : json(launchResult),
    );
    signedIn('old');

    const refreshing = client.adminAuth.refresh();
    const launching = client.launch.customer(1);
    await settled();
    expect(fetch.sent.map((request) => request.url.pathname)).toEqual([refreshPath('admin')]);

    refreshAnswer.resolve(json(authTokenResult({ accessToken: 'new', accessType: 'Admin' })));
    await Promise.all([refreshing, launching]);
    expect(bearerOf(fetch.sent[1])).toBe('Bearer new');
  });

  it("fails every waiting call with the refresh's own error, announced once", async () => {
    const { client, clock, fetch, hooks, signedIn } = setup((request) =>
      isRefresh(request) ? json(errorBody('NotAuthorized'), 401) : json(launchResult),
    );
    signedIn();
    clock.advanceMinutes(12);

    const errors = await Promise.all([1, 2, 3].map((id) => rejectionOf(client.launch.customer(id))));

    expect(new Set(errors).size).toBe(1);
    expect(errors[0]?.kind).toBe('notAuthorized');
    expect(fetch.sent.filter((request) => !isRefresh(request))).toHaveLength(0);
    expect(hooks.notified).toEqual([errorMessages.connectionLost]);
  });

  it('is not refreshed when it is restricted (it only serves the MFA step)', async () => {
    const issued = authTokenResult({ accessToken: 'full' });
    const { client, clock, fetch } = setup(() => json(issued), { scope: 'consumer' });
    client.tokens.set(authTokenResult({ accessToken: 'restricted', hasRestrictedAccess: true }));
    clock.advanceMinutes(12);

    await client.consumerAuth.mfaSignIn('123456');

    expect(fetch.sent.map((request) => request.url.pathname)).toEqual(['/api/auth/v1/consumer/sign-in/mfa']);
    expect(bearerOf(fetch.sent[0])).toBe('Bearer restricted');
  });

  it('is refreshed under a Web Lock named for its scope', async () => {
    const locks = fakeLockManager();
    const { client, clock, fetch, signedIn } = setup(
      (request) => (isRefresh(request) ? json(authTokenResult({ accessToken: 'new' })) : json(launchResult)),
      { locks },
    );
    signedIn('old');
    clock.advanceMinutes(12);

    await client.launch.customer(1);

    expect(locks.granted).toEqual(['admin-token-refresh']);
    expect(fetch.sent.filter(isRefresh)).toHaveLength(1);
    expect(bearerOf(fetch.sent.at(-1))).toBe('Bearer new');
  });

  it('is read again once the lock is held, and not refreshed when another tab already did', async () => {
    const { client, clock, fetch, signedIn } = setup(
      (request) => (isRefresh(request) ? json(authTokenResult({ accessToken: 'mine' })) : json(launchResult)),
      { locks: fakeLockManager(() => signedIn('from-the-other-tab')) },
    );
    signedIn('old');
    clock.advanceMinutes(12);

    await client.launch.customer(1);

    expect(fetch.sent.filter(isRefresh)).toHaveLength(0);
    expect(bearerOf(fetch.sent[0])).toBe('Bearer from-the-other-tab');
  });
});

describe('refresh and sign-out', () => {
  it('skip the session step: an expired session still signs out with its token and session guid', async () => {
    const { client, clock, fetch, hooks, storage, signedIn } = setup(
      () => new Response(null, { status: 204 }),
    );
    signedIn('old');
    storage.setItem(storageKeys.mfaComplete, 'true');
    clock.advanceMinutes(61);

    await client.adminAuth.signOut();

    expect(fetch.sent[0]?.url.pathname).toBe('/api/auth/v1/admin/sign-out');
    expect(bearerOf(fetch.sent[0])).toBe('Bearer old');
    expect(fetch.sent[0]?.headers.get('session-guid')).toBe('session-1');
    expect(hooks.notified).toEqual([]);
    expect(storage.entries()).toEqual({});
  });

  it('sign-out forgets the session even when the call fails', async () => {
    const { client, storage, signedIn } = setup(() => {
      throw new TypeError('Failed to fetch');
    });
    signedIn();

    const error = await rejectionOf(client.adminAuth.signOut());

    expect(error.kind).toBe('network');
    expect(storage.entries()).toEqual({});
  });

  it('an explicit refresh of an expired session is sent, not ended on the client', async () => {
    const { client, clock, fetch, signedIn } = setup(() => json(authTokenResult({ accessToken: 'new' })), {
      scope: 'consumer',
    });
    signedIn('old');
    clock.advanceMinutes(61);

    await client.consumerAuth.refresh();

    expect(fetch.sent.map((request) => request.url.pathname)).toEqual([refreshPath('consumer')]);
    expect(client.tokens.state()).toMatchObject({ token: 'new', expired: false });
  });
});

describe('errors', () => {
  it.each<{
    name: string;
    status: number;
    body?: unknown;
    kind: ApiError['kind'];
    message: string;
    errorCode?: ErrorCode;
    notified: string[];
  }>([
    {
      name: '404, listed for the access call',
      status: 404,
      body: errorBody('ItemNotFound'),
      kind: 'listed',
      message: errorMessages.listedStatus,
      errorCode: 'ItemNotFound',
      notified: [errorMessages.serverError],
    },
    {
      name: '429 (listed on every call)',
      status: 429,
      body: errorBody('ToManyRequests'),
      kind: 'listed',
      message: errorMessages.listedStatus,
      errorCode: 'ToManyRequests',
      notified: [errorMessages.serverError],
    },
    {
      name: '401 without a bearer token (NotAuthorized)',
      status: 401,
      body: errorBody('NotAuthorized'),
      kind: 'listed',
      message: errorMessages.listedStatus,
      errorCode: 'NotAuthorized',
      notified: [errorMessages.unknownError],
    },
    {
      name: 'a listed status without an error body',
      status: 404,
      body: 'not json',
      kind: 'listed',
      message: errorMessages.listedStatus,
      notified: [errorMessages.unknownError],
    },
    {
      name: '500 (not listed)',
      status: 500,
      body: errorBody('Unknown'),
      kind: 'unexpected',
      message: errorMessages.unexpectedStatus,
      notified: [errorMessages.unknownError],
    },
    {
      name: '502 (not listed for this call)',
      status: 502,
      kind: 'unexpected',
      message: errorMessages.unexpectedStatus,
      notified: [errorMessages.unknownError],
    },
    {
      name: '201 (neither 200 nor 204)',
      status: 201,
      body: { subdomain: 'x' },
      kind: 'unexpected',
      message: errorMessages.unexpectedStatus,
      notified: [errorMessages.unknownError],
    },
    {
      name: 'a 200 whose body breaks the schema',
      status: 200,
      body: { subdomain: 'sender' },
      kind: 'unexpected',
      message: errorMessages.unexpectedStatus,
      notified: [errorMessages.unknownError],
    },
  ])('$name', async ({ status, body, kind, message, errorCode, notified }) => {
    const { client, hooks } = setup(
      () =>
        new Response(body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body), {
          status,
        }),
    );

    const error = await rejectionOf(client.access.bySubdomain('nobody'));

    expect(error).toMatchObject({ kind, message, status, errorCode });
    expect(error.body).toEqual(kind === 'listed' && typeof body === 'object' ? body : undefined);
    expect(await error.response?.text()).toBe(
      body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body),
    );
    expect(hooks.notified).toEqual(notified);
    expect(hooks.updateChecks).toBe(1);
  });

  it.each([
    ['seconds', '900', 900],
    ['an HTTP-date, read against the client clock', 'Wed, 15 Jan 2025 13:00:00 GMT', 3600],
    ['junk', 'soon', undefined],
    ['no header', null, undefined],
  ])('a refusal carries how long to wait from a Retry-After of %s', async (_name, header, seconds) => {
    const { client } = setup(
      () =>
        new Response(JSON.stringify(errorBody('ToManyRequests')), {
          status: 429,
          headers: header === null ? {} : { 'Retry-After': header },
        }),
      { scope: 'consumer' },
    );

    const error = await rejectionOf(client.consumerAuth.resendMfa());

    expect(error).toMatchObject({ status: 429, errorCode: 'ToManyRequests', retryAfterSeconds: seconds });
  });

  it('an unexpected status carries its Retry-After too', async () => {
    const { client } = setup(() => new Response(null, { status: 503, headers: { 'Retry-After': '30' } }));

    const error = await rejectionOf(client.access.bySubdomain('sender'));

    expect(error).toMatchObject({ kind: 'unexpected', status: 503, retryAfterSeconds: 30 });
  });

  it('a call the server cannot be reached for is a network error, without a message but with an update check', async () => {
    const { client, hooks } = setup(() => {
      throw new TypeError('Failed to fetch');
    });

    const error = await rejectionOf(client.access.bySubdomain('sender'));

    expect(error.kind).toBe('network');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(hooks.notified).toEqual([]);
    expect(hooks.updateChecks).toBe(1);
  });

  it('a 204 answers an empty result', async () => {
    const { client, hooks } = setup(() => new Response(null, { status: 204 }));

    await expect(client.adminAuth.resetPassword({ username: 'ann' })).resolves.toBeUndefined();
    expect(hooks.updateChecks).toBe(0);
  });
});

describe('a call whose page explains its failures', () => {
  it('leaves the snack-bar silent: the page shows one message, not two', async () => {
    const { client, hooks } = setup(() => json(errorBody('ItemNotFound'), 404), { scope: 'consumer' });

    const error = await rejectionOf(client.access.bySubdomain('nobody', { explainedByPage: true }));

    expect(error).toMatchObject({ kind: 'listed', status: 404, errorCode: 'ItemNotFound' });
    expect(hooks.notified).toEqual([]);
    expect(hooks.updateChecks).toBe(1);
  });

  it('still announces an ended session, which no page explains', async () => {
    const { client, hooks, signedIn } = setup(() => json(errorBody('NotAuthorized'), 401));
    signedIn();

    const error = await rejectionOf(client.launch.customer(1001, { explainedByPage: true }));

    expect(error.kind).toBe('notAuthorized');
    expect(hooks.notified).toEqual([errorMessages.connectionLost]);
    expect(hooks.wentToRoot).toBe(1);
  });
});

describe('a client with a time limit', () => {
  it('gives up a call left without an answer as a network error, silently', async () => {
    vi.useFakeTimers();
    try {
      const hooks = recordingHooks();
      const neverAnswers: typeof fetch = (_input, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        });
      const client = createApiClient({
        scope: 'consumer',
        storage: memoryStorage(),
        hooks,
        fetch: neverAnswers,
        locks: undefined,
        timeoutMs: 15_000,
      });

      let settledYet = false;
      const call = rejectionOf(client.identityTokens.get('token-1')).finally(() => {
        settledYet = true;
      });
      await vi.advanceTimersByTimeAsync(14_999);
      expect(settledYet).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = await call;

      expect(error.kind).toBe('network');
      expect(isUnreachable(error)).toBe(true);
      expect(hooks.notified).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('isUnreachable', () => {
  it.each<[string, unknown, boolean]>([
    ['no answer', new ApiError('network', 'x'), true],
    ['a 500', new ApiError('unexpected', 'x', { status: 500 }), true],
    ['a 503', new ApiError('unexpected', 'x', { status: 503 }), true],
    ['a 404', new ApiError('listed', 'x', { status: 404 }), false],
    ['a 429', new ApiError('listed', 'x', { status: 429 }), false],
    ['a failed parameter check', new ApiError('parameter', 'x'), false],
    ['another error', new TypeError('x'), false],
  ])('%s', (_name, error, expected) => {
    expect(isUnreachable(error)).toBe(expected);
  });
});
