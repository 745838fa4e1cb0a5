import { type ApiClient, type ClientHooks, createApiClient } from '@entry/client';
import type { Scope } from '@entry/domain';
import { createContext, useContext } from 'react';
import { appUpdate } from '../app-update.ts';
import { notifyInLanguage } from '../client-notices.ts';
import { returnToScopeStart } from './session-navigation.ts';
import { type ObservedStorage, observeStorage } from './session-storage.ts';

let storage: ObservedStorage | undefined;

/** The tab's session storage, observed so pages follow token changes wherever they happen. */
function portalStorage(): ObservedStorage {
  storage ??= observeStorage(window.sessionStorage);
  return storage;
}

const clients = new Map<Scope, ApiClient>();

/** What a portal's clients ask of the page: an ended session returns to the scope's start. */
export function portalHooks(scope: Scope, observed: ObservedStorage): ClientHooks {
  return {
    notify: notifyInLanguage,
    goToRoot: () => returnToScopeStart(scope, observed),
    requestUpdateCheck: appUpdate.checkForUpdate,
  };
}

/**
 * One API client per portal scope. An ended session (expiry or 401) returns to that scope's start
 * (docs/rules.md#web) rather than the entry root, so a staff member lands on their sign-in page.
 */
function portalApi(scope: Scope): ApiClient {
  let client = clients.get(scope);
  if (client === undefined) {
    const observed = portalStorage();
    client = createApiClient({
      scope,
      storage: observed,
      hooks: portalHooks(scope, observed),
    });
    clients.set(scope, client);
  }
  return client;
}

export interface PortalServices {
  api(scope: Scope): ApiClient;
  storage: ObservedStorage;
  /** What a client the page builds itself sends through (the console's); the browser's by default. */
  fetch?: typeof fetch | undefined;
  /** The hooks of such a client; `portalHooks` by default. */
  hooks?: ((scope: Scope) => ClientHooks) | undefined;
}

const PortalServicesContext = createContext<PortalServices | null>(null);

export const PortalServicesProvider = PortalServicesContext.Provider;

/** The API clients and storage of the portals; tests provide their own through `PortalServicesProvider`. */
export function usePortalServices(): PortalServices {
  return useContext(PortalServicesContext) ?? { api: portalApi, storage: portalStorage() };
}

export function usePortalApi(scope: Scope): ApiClient {
  return usePortalServices().api(scope);
}
