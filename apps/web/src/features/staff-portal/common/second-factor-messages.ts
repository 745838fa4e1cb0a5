/**
 * Our own plain texts for the staff second factors (the spec gives none); where the server's
 * refusal has words of its own (issue 32's contract), they are the same words.
 */
export const secondFactorMessages = {
  wrongCode: 'The code is not correct.',
  passkeyNotRegistered: 'This passkey is not registered.',
  stepUpRequired: 'Confirm it is you with your second factor first.',
  stepUpWithoutFactor:
    'This change needs a second factor, and you have none yet. Set one up on your security page, then try again.',
  stepUpFactorsOff:
    'This change needs a second factor, and second factors are turned off for your organization. Ask an administrator to make the change, or to allow second factors.',
  pendingExpired: 'This sign-in has timed out. Sign in again with your password.',
  locked:
    'Second-factor sign-in to this account is locked after too many failed attempts. Try again later, or ask your administrator to unlock it.',
  lockedFor: (wait: string) =>
    `Second-factor sign-in to this account is locked after too many failed attempts. Try again ${wait}, or ask your administrator to unlock it.`,
  passkeyCanceled:
    'The passkey was not used: the request was canceled or timed out. Try again when you are ready.',
  passkeyAlreadyRegistered: 'This device already has a passkey for your account.',
  passkeyUnsupported: 'This browser cannot use passkeys here. Choose another way.',
  enterTotpCode: 'Enter the 6-digit code from your authenticator app.',
  totpCodeDigits: 'The code is 6 digits, such as 123456.',
  enterRecoveryCode: 'Enter one of your recovery codes.',
  enterPasskeyName: 'Enter a name for this passkey.',
  passkeyNameLength: 'Use at most 64 characters.',
  notAllowedByPolicy: 'Your organization does not use second factors, so none can be added.',
} as const;

/** The choices of the second step. */
export const methodNames = {
  passkey: 'Use a passkey',
  totp: 'Use an authenticator app',
  recovery: 'Use a recovery code',
} as const;

export type SecondFactorMethod = keyof typeof methodNames;
