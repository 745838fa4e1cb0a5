import { z } from 'zod';
import { authTokenResultSchema } from './schemas.ts';

/**
 * The staff second factors' calls (docs/rules.md#staff-second-factors): an authenticator app
 * (TOTP), passkeys (WebAuthn) and recovery codes, for admins always and for customer users as
 * their tenant's policy says.
 */

export const staffSecondFactorPolicies = ['off', 'optional', 'required'] as const;
export const staffSecondFactorPolicySchema = z.enum(staffSecondFactorPolicies);
export type StaffSecondFactorPolicy = z.infer<typeof staffSecondFactorPolicySchema>;

/** How long a second factor used in a session lets it launch a portal or change its factors. */
export const stepUpMinutes = 15;

const isoDateTime = z.iso.datetime();
const otpCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/);

/** The second step after a password, or a step-up of a full session. */
export const secondFactorSignInRequestSchema = z.strictObject({
  method: z.enum(['totp', 'recovery']),
  code: z.string().trim().min(1).max(64),
});
export type SecondFactorSignInRequest = z.infer<typeof secondFactorSignInRequestSchema>;

export const passkeySummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: isoDateTime,
  lastUsedAt: isoDateTime.nullable(),
  /** Synced to the user's other devices by its provider. */
  backedUp: z.boolean(),
});
export type PasskeySummary = z.infer<typeof passkeySummarySchema>;

/** A user's second factors, as its security page and second-step page show them. */
export const secondFactorsSchema = z.object({
  /** For admins always `required`. */
  policy: staffSecondFactorPolicySchema,
  totp: z.object({ enrolled: z.boolean() }),
  passkeys: z.array(passkeySummarySchema),
  recoveryCodesLeft: z.number().int().nonnegative(),
  /** When a second factor was last used in the calling session; null when never. */
  secondFactorAt: isoDateTime.nullable(),
});
export type SecondFactors = z.infer<typeof secondFactorsSchema>;

/** An authenticator app to add: its secret (base32), the otpauth URI and that URI as an SVG QR code. */
export const totpEnrolmentSchema = z.object({
  secret: z.string(),
  otpauthUri: z.string(),
  qrCodeSvg: z.string(),
});
export type TotpEnrolment = z.infer<typeof totpEnrolmentSchema>;

export const totpConfirmRequestSchema = z.strictObject({ code: otpCode });
export type TotpConfirmRequest = z.infer<typeof totpConfirmRequestSchema>;

/**
 * A factor added: the session's new token pair (full access, the factor just used), and the ten
 * recovery codes when this was the user's first factor (shown once), else null.
 */
export const enrolmentResultSchema = z.object({
  auth: authTokenResultSchema,
  recoveryCodes: z.array(z.string()).nullable(),
});
export type EnrolmentResult = z.infer<typeof enrolmentResultSchema>;

export const recoveryCodesSchema = z.object({ recoveryCodes: z.array(z.string()) });
export type RecoveryCodes = z.infer<typeof recoveryCodesSchema>;

/** WebAuthn JSON as @simplewebauthn produces and reads it; checked in depth by the server's verifier. */
const webauthnJson = z.record(z.string(), z.unknown());

/** A challenge to answer: the options for `navigator.credentials`, and the challenge's id to send back. */
export const passkeyOptionsResultSchema = z.object({
  challengeId: z.uuid(),
  options: webauthnJson,
});
export type PasskeyOptionsResult = z.infer<typeof passkeyOptionsResultSchema>;

/** The longest name a passkey may have, in characters. */
export const passkeyNameMaxLength = 64;
const passkeyName = z.string().trim().min(1).max(passkeyNameMaxLength);

export const passkeyRegistrationRequestSchema = z.strictObject({
  challengeId: z.uuid(),
  name: passkeyName,
  response: webauthnJson,
});
export type PasskeyRegistrationRequest = z.infer<typeof passkeyRegistrationRequestSchema>;

export const passkeySignInRequestSchema = z.strictObject({
  challengeId: z.uuid(),
  response: webauthnJson,
});
export type PasskeySignInRequest = z.infer<typeof passkeySignInRequestSchema>;

export const passkeyRenameRequestSchema = z.strictObject({ name: passkeyName });
export type PasskeyRenameRequest = z.infer<typeof passkeyRenameRequestSchema>;
