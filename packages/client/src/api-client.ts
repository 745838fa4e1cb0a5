import { isScope, type Scope, unrecognizedScopeMessage } from '@entry/domain';
import { type AccessApi, createAccessApi } from './access.ts';
import { type ConsumerAuthApi, createConsumerAuthApi } from './consumer-auth.ts';
import { createEmailSubscriptionsApi, type EmailSubscriptionsApi } from './email-subscriptions.ts';
import { type ClientHooks, createHttpClient, type HttpClient } from './http.ts';
import { createIdentityTokensApi, type IdentityTokensApi } from './identity-tokens.ts';
import { createLaunchApi, type LaunchApi } from './launch.ts';
import { createScopeAuthApi, type ScopeAuthApi } from './scope-auth.ts';
import { createSecondFactorsApi, type SecondFactorsApi } from './second-factors.ts';
import {
  type CustomerAuthApi,
  createAdminAuthApi,
  createCustomerAuthApi,
  type StaffAuthApi,
} from './staff-auth.ts';
import { createTokenStore, type KeyValueStorage, type TokenStore } from './token-store.ts';

export interface ApiClientOptions {
  /** The portal the client serves: its token is sent and kept fresh by default. */
  scope: Scope;
  /** `sessionStorage` in the browser (docs/rules.md#web). */
  storage: KeyValueStorage;
  hooks: ClientHooks;
  fetch?: typeof fetch | undefined;
  /** '' (the default) is the page's own origin. */
  baseUrl?: string | undefined;
  now?: (() => number) | undefined;
  /** Defaults to `navigator.locks` where the browser has it; pass `undefined` to refresh without one. */
  locks?: LockManager | undefined;
  /** See `HttpClientOptions.timeoutMs`: only for a client that never refreshes. */
  timeoutMs?: number | undefined;
}

export interface ApiClient {
  access: AccessApi;
  identityTokens: IdentityTokensApi;
  consumerAuth: ConsumerAuthApi;
  adminAuth: StaffAuthApi;
  customerAuth: CustomerAuthApi;
  adminSecondFactors: SecondFactorsApi;
  customerSecondFactors: SecondFactorsApi;
  /** The client's own scope's actions; one the scope lacks rejects before anything is sent. */
  auth: ScopeAuthApi;
  launch: LaunchApi;
  emailSubscriptions: EmailSubscriptionsApi;
  /** The client's scope's token store. */
  tokens: TokenStore;
  /** The client's requests, for an area a lazily loaded page builds itself (e.g. `createConsoleApi`). */
  http: HttpClient;
}

/**
 * Everything at once, for pages that use several areas. A page that needs one area can build just
 * that one from `createHttpClient` and the area's factory, so the bundle carries only that area.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  if (!isScope(options.scope)) throw new Error(unrecognizedScopeMessage(String(options.scope)));
  const tokens = createTokenStore(options.storage, options.scope, options.now);
  const http = createHttpClient({
    scope: options.scope,
    tokens,
    hooks: options.hooks,
    fetch: options.fetch,
    baseUrl: options.baseUrl,
    locks: 'locks' in options ? options.locks : globalThis.navigator?.locks,
    now: options.now,
    timeoutMs: options.timeoutMs,
  });
  return {
    access: createAccessApi(http),
    identityTokens: createIdentityTokensApi(http),
    consumerAuth: createConsumerAuthApi(http),
    adminAuth: createAdminAuthApi(http),
    customerAuth: createCustomerAuthApi(http),
    adminSecondFactors: createSecondFactorsApi(http, 'admin'),
    customerSecondFactors: createSecondFactorsApi(http, 'customer'),
    auth: createScopeAuthApi(http, options.scope),
    launch: createLaunchApi(http),
    emailSubscriptions: createEmailSubscriptionsApi(http),
    tokens,
    http,
  };
}
