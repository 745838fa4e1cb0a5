import {
  type AuthTokenResult,
  assertScopeAction,
  type IdentityTokenSignInRequest,
  type LaunchTokenSignInRequest,
  type LookupSignInRequest,
  type LookupSignInResponse,
  type PasswordChangeRequest,
  type PasswordResetRequest,
  type PasswordSignInRequest,
  type Scope,
  type ScopeAction,
  scopeDoesNotImplementMessage,
} from '@entry/domain';
import { createConsumerAuthApi } from './consumer-auth.ts';
import type { HttpClient } from './http.ts';
import { createAdminAuthApi, createCustomerAuthApi } from './staff-auth.ts';

/**
 * Every sign-in and session action for one scope chosen at run time (a portal's sign-out button, a
 * sign-in page shared by admin and customer). An action the scope lacks, or any action of an
 * unknown scope, rejects with the domain's scope error before anything is sent.
 */
export interface ScopeAuthApi {
  signIn(request: PasswordSignInRequest): Promise<AuthTokenResult>;
  signInWithToken(request: LaunchTokenSignInRequest): Promise<AuthTokenResult>;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
  resetPassword(request: PasswordResetRequest): Promise<void>;
  changePassword(request: PasswordChangeRequest): Promise<void>;
  identityTokenSignIn(request: IdentityTokenSignInRequest): Promise<AuthTokenResult>;
  lookupSignIn(request: LookupSignInRequest): Promise<LookupSignInResponse>;
  mfaSignIn(mfaCode: string): Promise<AuthTokenResult>;
}

export function createScopeAuthApi(http: HttpClient, scope: string): ScopeAuthApi {
  const consumer = createConsumerAuthApi(http);
  const implementations: Record<Scope, Partial<ScopeAuthApi>> = {
    admin: createAdminAuthApi(http),
    customer: createCustomerAuthApi(http),
    consumer: {
      refresh: consumer.refresh,
      signOut: consumer.signOut,
      identityTokenSignIn: consumer.signInWithIdentityToken,
      lookupSignIn: consumer.lookupSignIn,
      mfaSignIn: consumer.mfaSignIn,
    },
  };

  function implementation<A extends ScopeAction>(action: A): ScopeAuthApi[A] {
    assertScopeAction(scope, action);
    const method = implementations[scope][action];
    if (method === undefined) throw new Error(scopeDoesNotImplementMessage(scope, action));
    return method;
  }

  return {
    signIn: async (request) => implementation('signIn')(request),
    signInWithToken: async (request) => implementation('signInWithToken')(request),
    refresh: async () => implementation('refresh')(),
    signOut: async () => implementation('signOut')(),
    resetPassword: async (request) => implementation('resetPassword')(request),
    changePassword: async (request) => implementation('changePassword')(request),
    identityTokenSignIn: async (request) => implementation('identityTokenSignIn')(request),
    lookupSignIn: async (request) => implementation('lookupSignIn')(request),
    mfaSignIn: async (mfaCode) => implementation('mfaSignIn')(mfaCode),
  };
}
