import { type ApiClient, createApiClient } from '@entry/client';
import { appUpdate } from './app-update.ts';
import { notify } from './notifications.ts';

let consumerClient: ApiClient | undefined;

/** The API client of the entry app, whose sessions are the consumer's (spec section 6). */
export function consumerApi(): ApiClient {
  consumerClient ??= createApiClient({
    scope: 'consumer',
    storage: window.sessionStorage,
    hooks: {
      notify,
      goToRoot: () => window.location.assign('/'),
      requestUpdateCheck: appUpdate.checkForUpdate,
    },
    locks: 'locks' in navigator ? navigator.locks : undefined,
  });
  return consumerClient;
}
