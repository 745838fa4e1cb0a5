import { tokenStorageKey } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { createApiClient } from './api-client.ts';
import {
  authTokenResult,
  errorBody,
  json,
  manualClock,
  memoryStorage,
  type Responder,
  recordingHooks,
  scriptedFetch,
} from './test-support.ts';

const pending = authTokenResult({
  accessToken: 'pending-token',
  accessType: 'SecondFactorPending',
  hasRestrictedAccess: true,
});
const full = authTokenResult({ accessToken: 'full-token', accessType: 'Admin' });
const challengeId = '0b3d8f9e-6f0a-4c55-9a0e-2d6f1f0c7a11';

function setup(respond: Responder, signedInWith = pending) {
  const storage = memoryStorage();
  const fetch = scriptedFetch(respond);
  const hooks = recordingHooks();
  const client = createApiClient({
    scope: 'admin',
    storage,
    hooks,
    fetch,
    now: manualClock().now,
    locks: undefined,
  });
  client.tokens.set(signedInWith);
  return { client, fetch, hooks, storage };
}

const stored = (storage: ReturnType<typeof memoryStorage>) =>
  JSON.parse(storage.entries()[tokenStorageKey('admin')] ?? 'null');

describe('second factors', () => {
  it('sends the pending token with a code and keeps the full token it answers', async () => {
    const { client, fetch, storage } = setup(() => json(full));

    await client.adminSecondFactors.signIn({ method: 'totp', code: '123456' });

    const sent = fetch.sent[0];
    expect(`${sent?.method} ${sent?.url.pathname} ${sent?.body}`).toBe(
      'POST /api/auth/v1/admin/sign-in/second-factor {"method":"totp","code":"123456"}',
    );
    expect(sent?.headers.get('Authorization')).toBe('Bearer pending-token');
    expect(stored(storage)).toMatchObject({ token: 'full-token', hasRestrictedAccess: false });
  });

  it('leaves a wrong code to the page, and the pending session in place', async () => {
    const { client, hooks, storage } = setup(() => json(errorBody('InvalidSignIn'), 401));

    await expect(client.adminSecondFactors.signIn({ method: 'recovery', code: 'x' })).rejects.toMatchObject({
      status: 401,
      errorCode: 'InvalidSignIn',
    });
    expect(hooks.notified).toEqual([]);
    expect(hooks.wentToRoot).toBe(0);
    expect(stored(storage)).toMatchObject({ token: 'pending-token' });
  });

  it('asks for usernameless passkey options without the tab token, and for a session with it', async () => {
    const { client, fetch } = setup(() => json({ challengeId, options: { challenge: 'c' } }));

    await client.adminSecondFactors.passkeySignInOptions({ usernameless: true });
    await client.adminSecondFactors.passkeySignInOptions({ usernameless: false });

    expect(fetch.sent.map((sent) => sent.url.pathname)).toEqual([
      '/api/auth/v1/admin/sign-in/passkey/options',
      '/api/auth/v1/admin/sign-in/passkey/options',
    ]);
    expect(fetch.sent.map((sent) => sent.headers.get('Authorization'))).toEqual([
      null,
      'Bearer pending-token',
    ]);
  });

  it('keeps the session a usernameless passkey sign-in opens', async () => {
    const { client, fetch, storage } = setup(() => json(full));

    await client.adminSecondFactors.passkeySignIn(
      { challengeId, response: { id: 'p' } },
      { usernameless: true },
    );

    expect(fetch.sent[0]?.headers.get('Authorization')).toBeNull();
    expect(stored(storage)).toMatchObject({ token: 'full-token' });
  });

  it('replaces the enrolment token with the one a confirmed factor answers', async () => {
    const enrolment = authTokenResult({
      accessToken: 'enrolment-token',
      accessType: 'SecondFactorEnrolment',
      hasRestrictedAccess: true,
    });
    const { client, fetch, storage } = setup(
      () => json({ auth: full, recoveryCodes: ['aaaaa-bbbbb'] }),
      enrolment,
    );

    const result = await client.adminSecondFactors.confirmTotp({ code: '123456' });

    expect(result.recoveryCodes).toEqual(['aaaaa-bbbbb']);
    expect(fetch.sent[0]?.headers.get('Authorization')).toBe('Bearer enrolment-token');
    expect(stored(storage)).toMatchObject({ token: 'full-token', hasRestrictedAccess: false });
  });

  it('reads the factors with their dates as instants', async () => {
    const { client } = setup(() =>
      json({
        policy: 'required',
        totp: { enrolled: true },
        passkeys: [
          {
            id: 'p1',
            name: 'Laptop',
            createdAt: '2026-01-02T03:04:05.000Z',
            lastUsedAt: null,
            backedUp: false,
          },
        ],
        recoveryCodesLeft: 9,
        secondFactorAt: '2026-01-03T00:00:00.000Z',
      }),
    );

    const factors = await client.adminSecondFactors.get();

    expect(factors.passkeys[0]?.createdAt).toEqual(new Date('2026-01-02T03:04:05.000Z'));
    expect(factors.passkeys[0]?.lastUsedAt).toBeNull();
    expect(factors.secondFactorAt).toEqual(new Date('2026-01-03T00:00:00.000Z'));
  });

  it('renames and removes a passkey by its id, and tells a stale second factor by the error body', async () => {
    const { client, fetch } = setup(
      (request) =>
        request.method === 'DELETE'
          ? json({ ...errorBody('NotPermitted'), stepUpRequired: true }, 403)
          : new Response(null, { status: 204 }),
      full,
    );

    await client.customerSecondFactors.renamePasskey('p/1', { name: 'Phone' });
    const refusal = await client.customerSecondFactors
      .removePasskey('p/1', { explainedByPage: true })
      .catch((error: unknown) => error);

    expect(fetch.sent.map((sent) => `${sent.method} ${sent.url.pathname} ${sent.body}`)).toEqual([
      'PATCH /api/auth/v1/customer/second-factors/passkeys/p%2F1 {"name":"Phone"}',
      'DELETE /api/auth/v1/customer/second-factors/passkeys/p%2F1 null',
    ]);
    expect(refusal).toMatchObject({ status: 403, body: { stepUpRequired: true } });
  });
});
