import { callCheckMessages, errorMessages, parameterMustBeDefinedMessage, storageKeys } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { type ApiClient, createApiClient } from './api-client.ts';
import { ApiError } from './api-error.ts';
import {
  authTokenResult,
  json,
  manualClock,
  memoryStorage,
  type Responder,
  recordingHooks,
  scriptedFetch,
} from './test-support.ts';

function setup(respond: Responder = () => new Response(null, { status: 204 })) {
  const storage = memoryStorage();
  const hooks = recordingHooks();
  const fetch = scriptedFetch(respond);
  const client = createApiClient({
    scope: 'consumer',
    storage,
    hooks,
    fetch,
    now: manualClock().now,
    locks: undefined,
  });
  return { client, fetch, hooks, storage };
}

const identityToken = {
  guid: '5f1c8a57-6a7e-4b1e-9d55-0d8f3c0c2a11',
  shortId: null,
  consumerId: 'c-1',
  customerId: 1001,
  source: 'letter',
  createdAt: '2025-01-02T03:04:05.678Z',
  expiresAt: '2025-02-01T00:00:00Z',
  lastUsedAt: null,
  signInType: 'Direct',
  data: null,
};
const subscription = {
  emailAddress: 'pat@example.com',
  unsubscribed: true,
  changedAt: '2025-01-02T03:04:05Z',
};
const access = {
  subdomain: 'sender',
  target: 'http://sender.localhost:8080/c/',
  customerId: 1001,
  customerName: 'S',
};

describe('every call of the API', () => {
  it.each<{ name: string; send: (client: ApiClient) => Promise<unknown>; answer: unknown; request: string }>([
    {
      name: 'access by subdomain',
      send: (c) => c.access.bySubdomain('sender'),
      answer: access,
      request: 'GET /api/auth/v1/access/sender',
    },
    {
      name: 'access by customer',
      send: (c) => c.access.byCustomerId(1001),
      answer: access,
      request: 'GET /api/auth/v1/access/customer/1001',
    },
    {
      name: 'identity token',
      send: (c) => c.identityTokens.get('abc'),
      answer: identityToken,
      request: 'GET /api/auth/v1/consumers/token/abc',
    },
    {
      name: 'identity token, recording the opened link',
      send: (c) => c.identityTokens.get('abc', { addAction: true }),
      answer: identityToken,
      request: 'GET /api/auth/v1/consumers/token/abc?addAction=true',
    },
    {
      name: 'verify identity token',
      send: (c) => c.identityTokens.verify('abc'),
      answer: identityToken,
      request: 'GET /api/auth/v1/consumers/token/abc/verify',
    },
    {
      name: 'identity-token sign-in',
      send: (c) =>
        c.consumerAuth.signInWithIdentityToken({ token: 'abc', customerId: 1001, subdomain: 'sender' }),
      answer: authTokenResult(),
      request:
        'POST /api/auth/v1/consumer/sign-in/identity-token {"token":"abc","customerId":1001,"subdomain":"sender"}',
    },
    {
      name: 'lookup sign-in',
      send: (c) =>
        c.consumerAuth.lookupSignIn({ subdomain: 'sender', customerId: 1001, dateOfBirth: '1980-04-15' }),
      answer: { authToken: authTokenResult() },
      request:
        'POST /api/auth/v1/consumer/sign-in/lookup {"subdomain":"sender","customerId":1001,"dateOfBirth":"1980-04-15"}',
    },
    {
      name: 'MFA sign-in',
      send: (c) => c.consumerAuth.mfaSignIn('123456'),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/consumer/sign-in/mfa?mfaCode=123456',
    },
    {
      name: 'MFA sign-in in the page language',
      send: (c) => c.consumerAuth.mfaSignIn('123456', 'es'),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/consumer/sign-in/mfa?mfaCode=123456 {"language":"es"}',
    },
    {
      name: 'MFA resend',
      send: (c) => c.consumerAuth.resendMfa(),
      answer: null,
      request: 'POST /api/auth/v1/consumer/sign-in/mfa/resend',
    },
    {
      name: 'MFA resend in the page language',
      send: (c) => c.consumerAuth.resendMfa('es'),
      answer: null,
      request: 'POST /api/auth/v1/consumer/sign-in/mfa/resend {"language":"es"}',
    },
    {
      name: 'consumer refresh',
      send: (c) => c.consumerAuth.refresh(),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/consumer/refresh',
    },
    {
      name: 'consumer sign-out',
      send: (c) => c.consumerAuth.signOut(),
      answer: null,
      request: 'POST /api/auth/v1/consumer/sign-out',
    },
    {
      name: 'admin sign-in',
      send: (c) => c.adminAuth.signIn({ username: 'ann', password: 'pw' }),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/admin/sign-in {"username":"ann","password":"pw"}',
    },
    {
      name: 'admin refresh',
      send: (c) => c.adminAuth.refresh(),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/admin/refresh',
    },
    {
      name: 'admin sign-out',
      send: (c) => c.adminAuth.signOut(),
      answer: null,
      request: 'POST /api/auth/v1/admin/sign-out',
    },
    {
      name: 'admin password reset',
      send: (c) => c.adminAuth.resetPassword({ username: 'ann' }),
      answer: null,
      request: 'POST /api/auth/v1/admin/password/reset {"username":"ann"}',
    },
    {
      name: 'admin password change',
      send: (c) => c.adminAuth.changePassword({ username: 'ann', currentPassword: 'a', newPassword: 'b' }),
      answer: null,
      request:
        'POST /api/auth/v1/admin/password/change {"username":"ann","currentPassword":"a","newPassword":"b"}',
    },
    {
      name: 'customer sign-in',
      send: (c) => c.customerAuth.signIn({ username: 'cy', password: 'pw' }),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/customer/sign-in {"username":"cy","password":"pw"}',
    },
    {
      name: 'customer sign-in with a launch token',
      send: (c) => c.customerAuth.signInWithToken({ token: 'launch' }),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/customer/sign-in/token {"token":"launch"}',
    },
    {
      name: 'customer refresh',
      send: (c) => c.customerAuth.refresh(),
      answer: authTokenResult(),
      request: 'POST /api/auth/v1/customer/refresh',
    },
    {
      name: 'customer sign-out',
      send: (c) => c.customerAuth.signOut(),
      answer: null,
      request: 'POST /api/auth/v1/customer/sign-out',
    },
    {
      name: 'customer password change with a reset token',
      send: (c) => c.customerAuth.changePassword({ resetToken: 'r', newPassword: 'b' }),
      answer: null,
      request: 'POST /api/auth/v1/customer/password/change {"resetToken":"r","newPassword":"b"}',
    },
    {
      name: 'customer reset token check',
      send: (c) => c.customerAuth.checkResetToken({ resetToken: 'r' }),
      answer: null,
      request: 'POST /api/auth/v1/customer/password/reset/check {"resetToken":"r"}',
    },
    {
      name: 'customer password reset',
      send: (c) => c.customerAuth.resetPassword({ username: 'cy' }),
      answer: null,
      request: 'POST /api/auth/v1/customer/password/reset {"username":"cy"}',
    },
    {
      name: 'launch a customer',
      send: (c) => c.launch.customer(1001),
      answer: { token: 't' },
      request: 'POST /api/auth/v1/launch/customer/1001',
    },
    {
      name: 'launch a dash',
      send: (c) => c.launch.dashBilling(1001),
      answer: { token: 't' },
      request: 'POST /api/auth/v1/launch/dashbilling/1001',
    },
    {
      name: 'subscription by token',
      send: (c) => c.emailSubscriptions.byToken('sub'),
      answer: subscription,
      request: 'GET /api/v1/communication/email/subscription/token/sub',
    },
    {
      name: 'subscription update',
      send: (c) =>
        c.emailSubscriptions.update({ token: 'sub', emailAddress: 'pat@example.com', unsubscribed: true }),
      answer: subscription,
      request:
        'POST /api/v1/communication/email/subscription?Token=sub&EmailAddress=pat%40example.com&Unsubscribed=true',
    },
  ])('$name: $request', async ({ send, answer, request }) => {
    const { client, fetch } = setup(() =>
      answer === null ? new Response(null, { status: 204 }) : json(answer),
    );

    await send(client);

    const sent = fetch.sent.at(-1);
    const line = `${sent?.method} ${sent?.url.pathname}${sent?.url.search}`;
    expect(sent?.body === null ? line : `${line} ${sent?.body}`).toBe(request);
  });

  it.each([
    {
      name: 'lookup sign-in, 502',
      status: 502,
      send: (c: ApiClient) => c.consumerAuth.lookupSignIn({ subdomain: 's', customerId: 1 }),
      kind: 'listed',
    },
    {
      name: 'lookup sign-in, 504',
      status: 504,
      send: (c: ApiClient) => c.consumerAuth.lookupSignIn({ subdomain: 's', customerId: 1 }),
      kind: 'listed',
    },
    {
      name: 'verify, 403',
      status: 403,
      send: (c: ApiClient) => c.identityTokens.verify('abc'),
      kind: 'listed',
    },
    {
      name: 'password change, 409',
      status: 409,
      send: (c: ApiClient) => c.customerAuth.changePassword({ resetToken: 'r', newPassword: 'n' }),
      kind: 'listed',
    },
    {
      name: 'subscription, 502',
      status: 502,
      send: (c: ApiClient) => c.emailSubscriptions.byToken('sub'),
      kind: 'listed',
    },
    {
      name: 'access by customer, 404 (not in its list)',
      status: 404,
      send: (c: ApiClient) => c.access.byCustomerId(1),
      kind: 'unexpected',
    },
    {
      name: 'identity token, 409 (not in its list)',
      status: 409,
      send: (c: ApiClient) => c.identityTokens.get('abc'),
      kind: 'unexpected',
    },
  ])('$name is $kind', async ({ status, send, kind }) => {
    const { client } = setup(() => json({ errorCode: 'Unknown', message: 'm', errors: [] }, status));

    await expect(send(client)).rejects.toMatchObject({ kind, status });
  });
});

describe('client-side checks', () => {
  it.each<{ name: string; send: (client: ApiClient) => Promise<unknown>; message: string }>([
    {
      name: 'subscription without a token',
      send: (c) => c.emailSubscriptions.byToken(undefined),
      message: callCheckMessages.tokenMustBeDefined,
    },
    {
      name: 'subscription with an empty token',
      send: (c) => c.emailSubscriptions.byToken(''),
      message: callCheckMessages.tokenMustBeDefined,
    },
    {
      name: 'subscription update without a token',
      send: (c) => c.emailSubscriptions.update({ token: null, unsubscribed: true }),
      message: callCheckMessages.tokenMustBeDefined,
    },
    {
      name: 'subscription update with unsubscribed null',
      send: (c) => c.emailSubscriptions.update({ token: 'sub', unsubscribed: null }),
      message: callCheckMessages.unsubscribedCannotBeNull,
    },
    {
      name: 'access without a subdomain',
      send: (c) => c.access.bySubdomain(undefined),
      message: parameterMustBeDefinedMessage('subdomain'),
    },
    {
      name: 'access without a customer id',
      send: (c) => c.access.byCustomerId(null),
      message: parameterMustBeDefinedMessage('customerId'),
    },
    {
      name: 'access with a customer id that is not a number',
      send: (c) => c.access.byCustomerId(Number.NaN),
      message: parameterMustBeDefinedMessage('customerId'),
    },
    {
      name: 'identity token without a token',
      send: (c) => c.identityTokens.get(undefined),
      message: callCheckMessages.tokenMustBeDefined,
    },
    {
      name: 'verify without a token',
      send: (c) => c.identityTokens.verify(null),
      message: callCheckMessages.tokenMustBeDefined,
    },
    {
      name: 'launch without a customer id',
      send: (c) => c.launch.customer(undefined),
      message: parameterMustBeDefinedMessage('customerId'),
    },
    {
      name: 'dash launch without a customer id',
      send: (c) => c.launch.dashBilling(null),
      message: parameterMustBeDefinedMessage('customerId'),
    },
  ])('$name fails before anything is sent', async ({ send, message }) => {
    const { client, fetch, hooks } = setup();

    const error = await send(client).catch((reason: unknown) => reason);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ kind: 'parameter', message });
    expect(fetch.sent).toHaveLength(0);
    expect(hooks).toMatchObject({ notified: [], updateChecks: 0 });
  });

  it('omits null query parameters but always sends Unsubscribed', async () => {
    const { client, fetch } = setup((request) =>
      json(request.url.pathname.includes('/consumers/') ? identityToken : subscription),
    );

    await client.emailSubscriptions.update({ token: 'sub', emailAddress: null, unsubscribed: false });
    await client.identityTokens.get('abc', {});

    expect(fetch.sent[0]?.url.search).toBe('?Token=sub&Unsubscribed=false');
    expect(fetch.sent[1]?.url.search).toBe('');
  });

  it('encodes path parameters', async () => {
    const { client, fetch } = setup(() => json(subscription));

    await client.emailSubscriptions.byToken('a/b?c d');

    expect(fetch.sent[0]?.url.pathname).toBe('/api/v1/communication/email/subscription/token/a%2Fb%3Fc%20d');
  });
});

describe('responses', () => {
  it('revive the date-times of an identity token as instants', async () => {
    const { client } = setup(() => json({ ...identityToken, lastUsedAt: '2025-01-03T00:00:00Z' }));

    const token = await client.identityTokens.verify('abc');

    expect(token.createdAt).toEqual(new Date(Date.UTC(2025, 0, 2, 3, 4, 5, 678)));
    expect(token.expiresAt).toEqual(new Date(Date.UTC(2025, 1, 1)));
    expect(token.lastUsedAt).toEqual(new Date(Date.UTC(2025, 0, 3)));
    expect(token.guid).toBe(identityToken.guid);
  });

  it('keep a missing date null', async () => {
    const { client } = setup(() => json(identityToken));

    expect((await client.identityTokens.get('abc')).lastUsedAt).toBeNull();
  });

  it('revive the change time of a subscription', async () => {
    const { client } = setup(() => json(subscription));

    const record = await client.emailSubscriptions.byToken('sub');

    expect(record).toEqual({ ...subscription, changedAt: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)) });
  });

  it('keep a lookup sign-in token and its session guid', async () => {
    const { client, storage } = setup(() =>
      json({
        authToken: authTokenResult({
          accessToken: 'restricted',
          sessionGuid: 's-9',
          hasRestrictedAccess: true,
        }),
      }),
    );

    await client.consumerAuth.lookupSignIn({ subdomain: 'sender', customerId: 1001, last4Ssn: '1234' });

    expect(client.tokens.state()).toMatchObject({ token: 'restricted', restricted: true });
    expect(storage.entries()[storageKeys.sessionGuid]).toBe('s-9');
  });

  it('keep an admin sign-in under the admin key on a consumer client', async () => {
    const { client, storage } = setup(() =>
      json(authTokenResult({ accessToken: 'adm', accessType: 'Admin' })),
    );

    await client.adminAuth.signIn({ username: 'ann', password: 'pw' });

    expect(Object.keys(storage.entries()).sort()).toEqual(['admin-token', 'session-guid']);
    expect(client.tokens.get({ scope: 'admin' })?.token).toBe('adm');
  });

  it('reject an answer that is not the auth token result as unexpected, storing nothing', async () => {
    const { client, storage } = setup(() => json({ accessToken: 'x' }));

    await expect(client.customerAuth.signIn({ username: 'cy', password: 'pw' })).rejects.toMatchObject({
      kind: 'unexpected',
      message: errorMessages.unexpectedStatus,
      status: 200,
    });
    expect(storage.entries()).toEqual({});
  });
});
