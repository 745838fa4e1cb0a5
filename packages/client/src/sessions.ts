import type { AuthTokenResult, Scope } from '@entry/domain';
import { authPath, authTokenReader } from './auth-paths.ts';
import type { CallSpec, HttpClient } from './http.ts';

/** The sign-in and sign-out calls every scope shares; the HTTP client makes the refresh itself. */

/**
 * Sends a sign-in call and keeps its token under the scope's key, and its session guid. A sign-in
 * starts a session, so it skips the session step unless it is a later step that needs one (MFA).
 */
export async function signIn(
  http: HttpClient,
  scope: Scope,
  spec: Omit<CallSpec, 'scope' | 'signInStep' | 'method'>,
): Promise<AuthTokenResult> {
  const result = await http.call({
    session: 'skip',
    ...spec,
    method: 'POST',
    reader: authTokenReader,
    scope,
    signInStep: true,
  });
  http.tokens.set(result, { scope });
  return result;
}

/** Ends the session on the server; the token and session keys go even when that call fails. */
export async function signOut(http: HttpClient, scope: Scope): Promise<void> {
  try {
    await http.call({
      method: 'POST',
      path: authPath(scope, 'sign-out'),
      listed: [],
      scope,
      session: 'skip',
    });
  } finally {
    http.tokens.clearSession({ scope });
  }
}
