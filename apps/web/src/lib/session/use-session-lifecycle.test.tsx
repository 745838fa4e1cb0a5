import { errorMessages } from '@entry/domain';
import { act } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { subscribeToNotifications } from '../notifications.ts';
import { authTokenResult, renderPortalPage } from './portal-test-kit.tsx';
import { useSessionLifecycle } from './use-session-lifecycle.ts';

function Lifecycle() {
  useSessionLifecycle('admin');
  return null;
}

function storeToken(refreshInMs: number, expireInMs: number) {
  const result = authTokenResult();
  window.sessionStorage.setItem(
    'admin-token',
    JSON.stringify({
      token: result.accessToken,
      accessType: 'Admin',
      refreshAt: Date.now() + refreshInMs,
      expiresAt: Date.now() + expireInMs,
      hasRestrictedAccess: false,
    }),
  );
}

describe('useSessionLifecycle', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('renews the token once it turns stale, and follows the new record', async () => {
    storeToken(5_000, 3_600_000);
    const { sent } = renderPortalPage(<Lifecycle />, {
      path: '/a/home',
      routes: { 'POST /api/auth/v1/admin/refresh': { status: 200, body: authTokenResult() } },
    });
    await act(() => vi.advanceTimersByTimeAsync(4_000));
    expect(sent).toEqual([]);
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(sent.map((call) => call.route)).toEqual(['POST /api/auth/v1/admin/refresh']);
    const record = JSON.parse(window.sessionStorage.getItem('admin-token') ?? '{}');
    // 75 % of the 15-minute access token after the renewal, a second ago.
    expect(record.refreshAt).toBe(Date.now() - 999 + 675_000);
  });

  it('tries again later when the renewal finds no connection', async () => {
    storeToken(1_000, 3_600_000);
    let attempts = 0;
    const { sent } = renderPortalPage(<Lifecycle />, {
      path: '/a/home',
      routes: {
        'POST /api/auth/v1/admin/refresh': () => {
          attempts += 1;
          if (attempts === 1) throw new TypeError('Failed to fetch');
          return { status: 200, body: authTokenResult() };
        },
      },
    });
    await act(() => vi.advanceTimersByTimeAsync(2_000));
    expect(sent).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(29_000));
    expect(sent).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    expect(sent).toHaveLength(2);
    expect(window.sessionStorage.getItem('admin-token')).toContain('"refreshAt"');
  });

  it('ends an expired session with the spec message and forgets the token', async () => {
    storeToken(3_600_000, 10_000);
    const messages: string[] = [];
    const unsubscribe = subscribeToNotifications((notification) => messages.push(notification.text));
    renderPortalPage(<Lifecycle />, { path: '/a/home' });
    await act(() => vi.advanceTimersByTimeAsync(10_001));
    unsubscribe();
    expect(messages).toEqual([errorMessages.connectionLost]);
    expect(window.sessionStorage.getItem('admin-token')).toBeNull();
  });
});
