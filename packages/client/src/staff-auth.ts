import type {
  AuthTokenResult,
  LaunchTokenSignInRequest,
  PasswordChangeRequest,
  PasswordResetCheckRequest,
  PasswordResetRequest,
  PasswordSignInRequest,
} from '@entry/domain';
import { authPath } from './auth-paths.ts';
import type { HttpClient } from './http.ts';
import { signIn, signOut } from './sessions.ts';

/** Admin and customer users sign in with a password. */
export interface StaffAuthApi {
  /** POST /v1/{scope}/sign-in; 401 `InvalidSignIn`, `UserLocked` or `PasswordExpired` is the page's to show. */
  signIn(request: PasswordSignInRequest): Promise<AuthTokenResult>;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
  /**
   * POST /v1/{scope}/activity: the person is active, so the server's idle limit starts again (a
   * refresh does not count as use). Quiet on failure; an ended session still ends here.
   */
  reportActivity(): Promise<void>;
  /** Always 204: it never tells whether the user exists. */
  resetPassword(request: PasswordResetRequest): Promise<void>;
  /** Whether a mailed reset token can still set a password: 404 `ItemNotFound` or 409 `InvalidState` when not. */
  checkResetToken(request: PasswordResetCheckRequest): Promise<void>;
  changePassword(request: PasswordChangeRequest): Promise<void>;
}

export interface CustomerAuthApi extends StaffAuthApi {
  /** POST /v1/customer/sign-in/token: exchanges an admin's single-use launch token. */
  signInWithToken(request: LaunchTokenSignInRequest): Promise<AuthTokenResult>;
}

function createStaffAuthApi(http: HttpClient, scope: 'admin' | 'customer'): StaffAuthApi {
  return {
    signIn: (request) =>
      signIn(http, scope, { path: authPath(scope, 'sign-in'), body: request, listed: [400, 401] }),
    refresh: () => http.refresh(scope),
    signOut: () => signOut(http, scope),
    reportActivity: () =>
      http.call({
        method: 'POST',
        path: authPath(scope, 'activity'),
        listed: [],
        scope,
        explainedByPage: true,
      }),
    resetPassword: (request) =>
      http.call({
        method: 'POST',
        path: authPath(scope, 'password/reset'),
        body: request,
        listed: [400],
        scope,
        session: 'skip',
        signInStep: true,
      }),
    checkResetToken: (request) =>
      http.call({
        method: 'POST',
        path: authPath(scope, 'password/reset/check'),
        body: request,
        listed: [400, 404, 409],
        scope,
        session: 'skip',
        signInStep: true,
      }),
    changePassword: (request) =>
      http.call({
        method: 'POST',
        path: authPath(scope, 'password/change'),
        body: request,
        listed: [400, 401, 404, 409],
        scope,
        session: 'skip',
        signInStep: true,
      }),
  };
}

export function createAdminAuthApi(http: HttpClient): StaffAuthApi {
  return createStaffAuthApi(http, 'admin');
}

export function createCustomerAuthApi(http: HttpClient): CustomerAuthApi {
  return {
    ...createStaffAuthApi(http, 'customer'),
    signInWithToken: (request) =>
      signIn(http, 'customer', {
        path: authPath('customer', 'sign-in/token'),
        body: request,
        listed: [400, 401],
      }),
  };
}
