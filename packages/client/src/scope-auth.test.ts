import {
  scopeActions,
  scopeDoesNotImplementMessage,
  scopeImplements,
  scopes,
  unrecognizedScopeMessage,
} from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { createApiClient } from './api-client.ts';
import { createHttpClient } from './http.ts';
import { createScopeAuthApi, type ScopeAuthApi } from './scope-auth.ts';
import { json, memoryStorage, recordingHooks, scriptedFetch } from './test-support.ts';
import { createTokenStore } from './token-store.ts';

const requests: { [A in keyof ScopeAuthApi]: Parameters<ScopeAuthApi[A]> } = {
  signIn: [{ username: 'ann', password: 'pw' }],
  signInWithToken: [{ token: 'launch' }],
  refresh: [],
  signOut: [],
  resetPassword: [{ username: 'ann' }],
  changePassword: [{ resetToken: 'r', newPassword: 'n' }],
  identityTokenSignIn: [{ token: 'abc', customerId: 1, subdomain: 'sender' }],
  lookupSignIn: [{ subdomain: 'sender', customerId: 1 }],
  mfaSignIn: ['123456'],
};

function scopeAuth(scope: string) {
  const fetch = scriptedFetch(() => json({ unreadable: true }));
  const http = createHttpClient({
    scope: 'consumer',
    tokens: createTokenStore(memoryStorage(), 'consumer'),
    hooks: recordingHooks(),
    fetch,
  });
  return { auth: createScopeAuthApi(http, scope), fetch };
}

function perform(auth: ScopeAuthApi, action: keyof ScopeAuthApi): Promise<unknown> {
  const method = auth[action] as (...args: unknown[]) => Promise<unknown>;
  return method(...requests[action]);
}

describe('scope rules', () => {
  const cases = scopes.flatMap((scope) => scopeActions.map((action) => ({ scope, action })));

  it.each(cases)(
    '$scope / $action is sent exactly when the scope implements it',
    async ({ scope, action }) => {
      const { auth, fetch } = scopeAuth(scope);

      const error = await perform(auth, action).catch((reason: unknown) => reason);

      if (scopeImplements(scope, action)) {
        expect(fetch.sent).toHaveLength(1);
        expect(fetch.sent[0]?.url.pathname).toContain(`/${scope}/`);
      } else {
        expect(error).toEqual(new Error(scopeDoesNotImplementMessage(scope, action)));
        expect(fetch.sent).toHaveLength(0);
      }
    },
  );

  it('rejects every action of an unknown scope', async () => {
    const { auth, fetch } = scopeAuth('partner');

    await expect(auth.refresh()).rejects.toThrow(unrecognizedScopeMessage('partner'));
    expect(fetch.sent).toHaveLength(0);
  });

  it('refuses to build a client for an unknown scope', () => {
    expect(() =>
      createApiClient({
        scope: 'partner' as never,
        storage: memoryStorage(),
        hooks: recordingHooks(),
        locks: undefined,
      }),
    ).toThrow(unrecognizedScopeMessage('partner'));
  });
});
