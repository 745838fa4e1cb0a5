import { isApiError } from '@entry/client';
import type { Scope } from '@entry/domain';
import { useEffect } from 'react';
import { textsOf } from '../../i18n/language.ts';
import { noticeTexts } from '../notice-texts.ts';
import { notify } from '../notifications.ts';
import { usePortalServices } from './portal-api.ts';
import { returnToScopeStart } from './session-navigation.ts';
import { useSession } from './use-session.ts';

/** After a refresh that failed for lack of a connection, try again this much later. */
const refreshRetryMs = 30_000;

/**
 * Keeps the scope's session alive while its page is open: the token is renewed once it turns stale
 * (at `refreshAt`), again when a hidden tab comes back, and the session ends with the spec's
 * message when it expires without a renewal.
 */
export function useSessionLifecycle(scope: Scope): void {
  const { api, storage } = usePortalServices();
  const { record } = useSession(scope);
  const token = record?.token ?? '';
  const refreshAt = record?.refreshAt ?? 0;
  const expiresAt = record?.expiresAt ?? 0;
  const restricted = record?.hasRestrictedAccess ?? false;

  useEffect(() => {
    if (token === '' || restricted) return;
    const client = api(scope);
    const timers = new Set<number>();
    const later = (run: () => void, delayMs: number) => {
      const timer = window.setTimeout(
        () => {
          timers.delete(timer);
          run();
        },
        Math.max(0, delayMs),
      );
      timers.add(timer);
    };

    const refreshIfStale = () => {
      const state = client.tokens.state();
      if (state.token === '' || state.expired || !state.stale) return;
      client.auth.refresh().catch((error: unknown) => {
        // A 401 has already ended the session in the client; without a connection, try again.
        if (isApiError(error) && error.kind === 'network') later(refreshIfStale, refreshRetryMs);
      });
    };
    const endIfExpired = () => {
      const state = client.tokens.state();
      if (state.token === '' || !state.expired) return;
      notify(textsOf('notices', noticeTexts).connectionLost);
      client.tokens.remove();
      returnToScopeStart(scope, storage);
    };
    const onVisible = () => {
      if (document.visibilityState !== 'visible') return;
      endIfExpired();
      refreshIfStale();
    };

    const now = Date.now();
    // Stale means "past refreshAt", so the timer fires just after it.
    later(refreshIfStale, refreshAt - now + 1);
    later(endIfExpired, expiresAt - now + 1);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      for (const timer of timers) window.clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [api, scope, storage, token, refreshAt, expiresAt, restricted]);
}
