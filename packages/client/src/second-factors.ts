import {
  type AuthTokenResult,
  type EnrolmentResult,
  enrolmentResultSchema,
  type PasskeyOptionsResult,
  type PasskeyRegistrationRequest,
  type PasskeyRenameRequest,
  type PasskeySignInRequest,
  type PasskeySummary,
  passkeyOptionsResultSchema,
  type RecoveryCodes,
  recoveryCodesSchema,
  type SecondFactorSignInRequest,
  type SecondFactors,
  secondFactorsSchema,
  type TotpConfirmRequest,
  type TotpEnrolment,
  totpEnrolmentSchema,
} from '@entry/domain';
import { type CallOptions, type HttpClient, requireParameter } from './http.ts';
import { authPath, signIn } from './sessions.ts';
import { datedReader, plainReader, type WithDates } from './wire.ts';

export type PasskeySummaryResult = WithDates<PasskeySummary, 'createdAt' | 'lastUsedAt'>;
export type SecondFactorsResult = Omit<WithDates<SecondFactors, 'secondFactorAt'>, 'passkeys'> & {
  passkeys: PasskeySummaryResult[];
};

/** Whose passkeys a passkey sign-in may use: the session's user's, or any (usernameless). */
export interface PasskeySignInMode {
  /** No token is sent, so the challenge belongs to no session and any registered passkey answers it. */
  usernameless: boolean;
}

/**
 * A staff user's second factors (docs/rules.md#staff-second-factors): the second step after a
 * password or a step-up of a full session, and the security page's enrolment and management calls.
 * Restricted tokens are sent as they are: the server decides what each one may call.
 */
export interface SecondFactorsApi {
  /** GET /v1/{scope}/second-factors. */
  get(options?: CallOptions): Promise<SecondFactorsResult>;
  /** POST /v1/{scope}/sign-in/second-factor: an authenticator or recovery code; keeps the new token. */
  signIn(request: SecondFactorSignInRequest): Promise<AuthTokenResult>;
  /** POST /v1/{scope}/sign-in/passkey/options. */
  passkeySignInOptions(mode: PasskeySignInMode): Promise<PasskeyOptionsResult>;
  /** POST /v1/{scope}/sign-in/passkey, in the same mode as its options; keeps the new token. */
  passkeySignIn(request: PasskeySignInRequest, mode: PasskeySignInMode): Promise<AuthTokenResult>;
  /** POST /v1/{scope}/second-factors/totp: a new, unconfirmed authenticator app. */
  addTotp(options?: CallOptions): Promise<TotpEnrolment>;
  /** POST /v1/{scope}/second-factors/totp/confirm; keeps the session's new token. */
  confirmTotp(request: TotpConfirmRequest, options?: CallOptions): Promise<EnrolmentResult>;
  /** DELETE /v1/{scope}/second-factors/totp. */
  removeTotp(options?: CallOptions): Promise<void>;
  /** POST /v1/{scope}/second-factors/recovery-codes: new codes; the old ones stop working. */
  regenerateRecoveryCodes(options?: CallOptions): Promise<RecoveryCodes>;
  /** POST /v1/{scope}/second-factors/passkeys/options: the options to create a passkey with. */
  passkeyRegistrationOptions(options?: CallOptions): Promise<PasskeyOptionsResult>;
  /** POST /v1/{scope}/second-factors/passkeys; keeps the session's new token. */
  addPasskey(request: PasskeyRegistrationRequest, options?: CallOptions): Promise<EnrolmentResult>;
  /** PATCH /v1/{scope}/second-factors/passkeys/:id. */
  renamePasskey(id: string, request: PasskeyRenameRequest, options?: CallOptions): Promise<void>;
  /** DELETE /v1/{scope}/second-factors/passkeys/:id. */
  removePasskey(id: string, options?: CallOptions): Promise<void>;
}

const secondFactorsReader = datedReader<SecondFactorsResult>(secondFactorsSchema);
const totpEnrolmentReader = plainReader(totpEnrolmentSchema);
const enrolmentReader = plainReader(enrolmentResultSchema);
const recoveryCodesReader = plainReader(recoveryCodesSchema);
const passkeyOptionsReader = plainReader(passkeyOptionsResultSchema);

export function createSecondFactorsApi(http: HttpClient, scope: 'admin' | 'customer'): SecondFactorsApi {
  const factorsPath = (action?: string) =>
    authPath(scope, action === undefined ? 'second-factors' : `second-factors/${action}`);
  const passkeyPath = (id: string) => factorsPath(`passkeys/${requireParameter('id', id)}`);

  /** A factor added answers the session's new token pair, which replaces the one the call was sent with. */
  async function enrol(
    path: string,
    body: TotpConfirmRequest | PasskeyRegistrationRequest,
    options: CallOptions,
  ): Promise<EnrolmentResult> {
    const result = await http.call({
      ...options,
      method: 'POST',
      path,
      body,
      reader: enrolmentReader,
      listed: [409],
      scope,
    });
    http.tokens.set(result.auth, { scope });
    return result;
  }

  return {
    get: (options = {}) =>
      http.call({
        ...options,
        method: 'GET',
        path: factorsPath(),
        reader: secondFactorsReader,
        listed: [],
        scope,
      }),
    signIn: (request) =>
      signIn(http, scope, {
        path: authPath(scope, 'sign-in/second-factor'),
        body: request,
        listed: [],
        session: 'required',
      }),
    passkeySignInOptions: ({ usernameless }) =>
      http.call({
        method: 'POST',
        path: authPath(scope, 'sign-in/passkey/options'),
        reader: passkeyOptionsReader,
        listed: [],
        scope,
        session: usernameless ? 'none' : 'required',
        signInStep: true,
      }),
    passkeySignIn: (request, { usernameless }) =>
      signIn(http, scope, {
        path: authPath(scope, 'sign-in/passkey'),
        body: request,
        listed: [409],
        session: usernameless ? 'none' : 'required',
      }),
    addTotp: (options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: factorsPath('totp'),
        reader: totpEnrolmentReader,
        listed: [409],
        scope,
      }),
    confirmTotp: (request, options = {}) => enrol(factorsPath('totp/confirm'), request, options),
    removeTotp: (options = {}) =>
      http.call({ ...options, method: 'DELETE', path: factorsPath('totp'), listed: [404, 409], scope }),
    regenerateRecoveryCodes: (options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: factorsPath('recovery-codes'),
        reader: recoveryCodesReader,
        listed: [409],
        scope,
      }),
    passkeyRegistrationOptions: (options = {}) =>
      http.call({
        ...options,
        method: 'POST',
        path: factorsPath('passkeys/options'),
        reader: passkeyOptionsReader,
        listed: [],
        scope,
      }),
    addPasskey: (request, options = {}) => enrol(factorsPath('passkeys'), request, options),
    renamePasskey: (id, request, options = {}) =>
      http.call({ ...options, method: 'PATCH', path: passkeyPath(id), body: request, listed: [404], scope }),
    removePasskey: (id, options = {}) =>
      http.call({ ...options, method: 'DELETE', path: passkeyPath(id), listed: [404, 409], scope }),
  };
}
