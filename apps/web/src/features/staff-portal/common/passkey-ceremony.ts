import { isApiError } from '@entry/client';
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser';
import { secondFactorMessages } from './second-factor-messages.ts';

/** WebAuthn JSON as the server's `@simplewebauthn/server` writes and reads it. */
export type WebAuthnJson = Record<string, unknown>;

/** Whether this browser has WebAuthn at all; a page offers passkeys only where it does. */
export function browserHasPasskeys(): boolean {
  return typeof window.PublicKeyCredential === 'function';
}

/** The library loads when a passkey is first used, so no page carries it before that. */
const library = () => import('@simplewebauthn/browser');

/** Creates a passkey with the registration options the server made; answers the attestation to send back. */
export async function createPasskey(options: WebAuthnJson): Promise<WebAuthnJson> {
  const { startRegistration } = await library();
  // The server built the options with the same library's counterpart; the browser checks them.
  const optionsJSON = options as unknown as PublicKeyCredentialCreationOptionsJSON;
  return { ...(await startRegistration({ optionsJSON })) };
}

/** Signs the server's challenge with a passkey; answers the assertion to send back. */
export async function signWithPasskey(options: WebAuthnJson): Promise<WebAuthnJson> {
  const { startAuthentication } = await library();
  const optionsJSON = options as unknown as PublicKeyCredentialRequestOptionsJSON;
  return { ...(await startAuthentication({ optionsJSON })) };
}

/**
 * What the person is told when the browser's passkey step failed, or null when the error came from
 * somewhere else (an API refusal). A canceled prompt and a timeout look the same to the page:
 * the browser does not say which, on purpose.
 */
export function passkeyFailureMessage(error: unknown): string | null {
  if (!(error instanceof Error) || isApiError(error)) return null;
  const code = 'code' in error ? error.code : undefined;
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED')
    return secondFactorMessages.passkeyAlreadyRegistered;
  if (error.name === 'NotAllowedError' || error.name === 'AbortError')
    return secondFactorMessages.passkeyCanceled;
  if (error.name === 'NotSupportedError' || error.name === 'SecurityError' || !browserHasPasskeys()) {
    return secondFactorMessages.passkeyUnsupported;
  }
  return code === undefined ? null : secondFactorMessages.passkeyCanceled;
}
