import {
  type AuthTokenResult,
  type IdentityTokenSignInRequest,
  type Language,
  type LookupSignInRequest,
  type LookupSignInResponse,
  lookupSignInResponseSchema,
} from '@entry/domain';
import { authPath } from './auth-paths.ts';
import type { HttpClient } from './http.ts';
import { signIn, signOut } from './sessions.ts';
import { plainReader } from './wire.ts';

/** Consumers sign in through a link's identity token, or by verifying who they are, then a code. */
export interface ConsumerAuthApi {
  /** POST /v1/consumer/sign-in/identity-token (Direct links); 404 `TokenExpired` or `ItemNotFound`. */
  signInWithIdentityToken(request: IdentityTokenSignInRequest): Promise<AuthTokenResult>;
  /** POST /v1/consumer/sign-in/lookup; the result may be a restricted token that only the MFA step accepts. */
  lookupSignIn(request: LookupSignInRequest): Promise<LookupSignInResponse>;
  /** POST /v1/consumer/sign-in/mfa?mfaCode=, sent with the restricted token; `language`: the page's, kept for the consumer. */
  mfaSignIn(mfaCode: string, language?: Language): Promise<AuthTokenResult>;
  /** POST /v1/consumer/sign-in/mfa/resend: a new code, the previous one void, written in `language` when given. */
  resendMfa(language?: Language): Promise<void>;
  refresh(): Promise<void>;
  signOut(): Promise<void>;
}

const lookupReader = plainReader(lookupSignInResponseSchema);

export function createConsumerAuthApi(http: HttpClient): ConsumerAuthApi {
  return {
    signInWithIdentityToken: (request) =>
      signIn(http, 'consumer', {
        path: authPath('consumer', 'sign-in/identity-token'),
        body: request,
        listed: [400, 404],
      }),
    async lookupSignIn(request) {
      const response = await http.call({
        method: 'POST',
        path: authPath('consumer', 'sign-in/lookup'),
        body: request,
        reader: lookupReader,
        listed: [400, 403, 404, 409, 502, 504],
        scope: 'consumer',
        session: 'skip',
        signInStep: true,
      });
      http.tokens.set(response.authToken, { scope: 'consumer' });
      return response;
    },
    mfaSignIn: (mfaCode, language) =>
      signIn(http, 'consumer', {
        path: authPath('consumer', 'sign-in/mfa'),
        query: { mfaCode },
        body: language === undefined ? undefined : { language },
        listed: [400, 401, 404, 409],
        session: 'required',
      }),
    resendMfa: (language) =>
      http.call({
        method: 'POST',
        path: authPath('consumer', 'sign-in/mfa/resend'),
        body: language === undefined ? undefined : { language },
        listed: [409],
        scope: 'consumer',
        signInStep: true,
      }),
    refresh: () => http.refresh('consumer'),
    signOut: () => signOut(http, 'consumer'),
  };
}
