import { type ApiClient, createApiClient } from '@entry/client';
import { appUpdate } from './app-update.ts';
import { notifyInLanguage } from './client-notices.ts';

let consumerClient: ApiClient | undefined;

/**
 * How long the entry pages wait for an answer before they say the server cannot be reached. They
 * never refresh a session, so giving up a call cannot lose a rotated refresh token.
 */
const entryCallTimeoutMs = 20_000;

/** The API client of the entry app, whose sessions are the consumer's. */
export function consumerApi(): ApiClient {
  consumerClient ??= createApiClient({
    scope: 'consumer',
    storage: window.sessionStorage,
    hooks: {
      notify: notifyInLanguage,
      goToRoot: () => window.location.assign('/'),
      requestUpdateCheck: appUpdate.checkForUpdate,
    },
    locks: 'locks' in navigator ? navigator.locks : undefined,
    timeoutMs: entryCallTimeoutMs,
  });
  return consumerClient;
}
