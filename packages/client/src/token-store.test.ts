import { storageKeys } from '@entry/domain';
import { describe, expect, it } from 'vitest';
import { authTokenResult, jwtWith, manualClock, memoryStorage } from './test-support.ts';
import { createTokenStore } from './token-store.ts';

describe('token store', () => {
  it('stores the record under {scope}-token with refreshAt at 75% of the access lifetime and expiresAt at the refresh lifetime', () => {
    const storage = memoryStorage();
    const clock = manualClock();
    const store = createTokenStore(storage, 'consumer', clock.now);

    store.set(authTokenResult({ accessTokenExpiresIn: 20, refreshTokenExpiresIn: 60, sessionGuid: 'abc' }));

    const stored = JSON.parse(storage.entries()['consumer-token'] ?? 'null');
    expect(stored).toMatchObject({
      accessType: 'Consumer',
      refreshAt: clock.now() + 15 * 60_000,
      expiresAt: clock.now() + 60 * 60_000,
      hasRestrictedAccess: false,
    });
    expect(storage.entries()['session-guid']).toBe('abc');
  });

  it.each([
    { minutes: 0, stale: false, expired: false },
    { minutes: 11, stale: false, expired: false },
    { minutes: 11.26, stale: true, expired: false },
    { minutes: 59, stale: true, expired: false },
    { minutes: 60.01, stale: true, expired: true },
  ])(
    'after $minutes minutes of a 15/60 minute token: stale $stale, expired $expired',
    ({ minutes, stale, expired }) => {
      const clock = manualClock();
      const store = createTokenStore(memoryStorage(), 'admin', clock.now);
      store.set(authTokenResult({ accessTokenExpiresIn: 15, refreshTokenExpiresIn: 60 }));

      clock.advanceMinutes(minutes);

      expect(store.state()).toMatchObject({ stale, expired });
    },
  );

  it('reports the token, the restricted flag and the decoded payload', () => {
    const accessToken = jwtWith({ user: { context: { roleId: 3 } } });
    const store = createTokenStore(memoryStorage(), 'consumer', manualClock().now);
    store.set(authTokenResult({ accessToken, hasRestrictedAccess: true, accessType: 'MfaPending' }));

    expect(store.state()).toEqual({
      token: accessToken,
      expired: false,
      stale: false,
      restricted: true,
      payload: { user: { context: { roleId: 3 } } },
    });
  });

  it('has no token when nothing or something unreadable is stored', () => {
    const storage = memoryStorage({ 'admin-token': '{not json' });
    const store = createTokenStore(storage, 'customer');

    expect(store.get()).toBeNull();
    expect(store.get({ scope: 'admin' })).toBeNull();
    expect(store.state().token).toBe('');
  });

  it('saves and removes under an overriding scope without touching its own', () => {
    const storage = memoryStorage();
    const store = createTokenStore(storage, 'consumer', manualClock().now);
    store.set(authTokenResult({ accessToken: 'own' }));
    store.set(authTokenResult({ accessToken: 'admins', accessType: 'Admin' }), { scope: 'admin' });

    expect(store.get({ scope: 'admin' })?.token).toBe('admins');
    store.remove({ scope: 'admin' });

    expect(Object.keys(storage.entries()).sort()).toEqual(['consumer-token', 'session-guid']);
    expect(store.get()?.token).toBe('own');
  });

  it('forgets the token and the session keys on clearSession, keeping unrelated keys', () => {
    const storage = memoryStorage({
      [storageKeys.skip2fa]: 'true',
      [storageKeys.mfaComplete]: 'true',
      [storageKeys.idleExpiredTime]: '123',
      [storageKeys.tokenRedirect]: '/c/documents',
      [storageKeys.tokenTarget]: '1',
      [storageKeys.redirect]: '/a/home',
      'admin-token': '{}',
    });
    const store = createTokenStore(storage, 'consumer', manualClock().now);
    store.set(authTokenResult());

    store.clearSession();

    expect(storage.entries()).toEqual({ [storageKeys.redirect]: '/a/home', 'admin-token': '{}' });
  });

  it('reads and writes the other storage keys by their exact names', () => {
    const storage = memoryStorage();
    const store = createTokenStore(storage, 'consumer');

    store.setItem(storageKeys.tokenTarget, '4');
    store.setItem(storageKeys.sessionGuid, 'guid');

    expect(storage.entries()).toEqual({ 'token-target': '4', 'session-guid': 'guid' });
    expect(store.sessionGuid()).toBe('guid');
    store.removeItem(storageKeys.tokenTarget);
    expect(store.getItem(storageKeys.tokenTarget)).toBeNull();
  });
});
