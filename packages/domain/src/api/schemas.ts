import { errorCodes } from '../errors.ts';
import { languageSchema } from '../languages.ts';
import { signInTypes } from '../sign-in-types.ts';
import { z } from '../zod.ts';

/**
 * The wire format of every call (docs/rules.md#calls). The server validates
 * requests and responses with these; the client parses responses with them. Date-times travel as
 * ISO 8601 UTC strings and dates as YYYY-MM-DD.
 */

const isoDateTime = z.iso.datetime();
const isoDate = z.iso.date();

const errorItemSchema = z.object({ field: z.string(), message: z.string() });
export const errorBodySchema = z.object({
  errorCode: z.enum(errorCodes),
  message: z.string(),
  errors: z.array(errorItemSchema),
  /** A refused verification answer: how many more answers may be tried before a lock. */
  triesLeft: z.number().int().nonnegative().optional(),
  /** A locked verification, or the answer that locked it: when the lock ends. */
  lockedUntil: isoDateTime.optional(),
  /** The call needs a second factor used within `stepUpMinutes`: confirm one, then try again. */
  stepUpRequired: z.boolean().optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** A boolean in a query string: `true` or `false`. */
const queryBooleanSchema = z.enum(['true', 'false']).transform((value) => value === 'true');

/** A tenant's id as the database keeps it (a 32-bit integer). */
const maxCustomerId = 2_147_483_647;
export const customerIdSchema = z.coerce.number().int().positive().max(maxCustomerId);
/** A tenant's id in a JSON body. */
const customerIdBodySchema = z.number().int().positive().max(maxCustomerId);
export const subdomainParamSchema = z.string().min(1).max(63);
/** An identity token in a path: a guid or a shortId. */
export const tokenParamSchema = z.string().min(1).max(64);

/** How consumers reach the organization; a detail the operator has not set is null. */
export const organizationContactSchema = z.object({
  phone: z.string().nullable(),
  email: z.string().nullable(),
  /** When someone answers, in the organization's own words, e.g. "Monday to Friday, 8 AM to 6 PM Eastern". */
  hours: z.string().nullable(),
  /** An http or https address. */
  website: z.string().nullable(),
});
export type OrganizationContact = z.infer<typeof organizationContactSchema>;

export const accessResultSchema = z.object({
  subdomain: z.string(),
  /** Absolute URL of the tenant's consumer portal base, e.g. `http://sender.localhost:8080/c/`. */
  target: z.string(),
  customerId: z.number().int(),
  customerName: z.string(),
  /** The organization's contact details (beside the spec's fields; every tenant page shows them). */
  contact: organizationContactSchema.optional(),
  /** The path of the organization's logo on the tenant's host, when it has one; it changes with the logo. */
  logoUrl: z.string().optional(),
  /** The language of the organization's consumer pages and mail when nothing else names one. */
  defaultLanguage: languageSchema.optional(),
  /** Whether the organization collects debts: its consumer pages and mail then say so. */
  debtCollector: z.boolean().optional(),
});
export type AccessResult = z.infer<typeof accessResultSchema>;

/**
 * `SecondFactorPending` and `SecondFactorEnrolment`: a staff password sign-in that must still pass or
 * add a second factor. `PasswordExpired`: one that passed its second factor with a password past its
 * organization's maximum age, good only for the password change.
 */
const accessTypes = [
  'Admin',
  'Customer',
  'Launched',
  'Consumer',
  'MfaPending',
  'SecondFactorPending',
  'SecondFactorEnrolment',
  'PasswordExpired',
] as const;
export const accessTypeSchema = z.enum(accessTypes);
export type AccessType = z.infer<typeof accessTypeSchema>;

export const authTokenResultSchema = z.object({
  accessToken: z.string(),
  /** Minutes. */
  accessTokenExpiresIn: z.number(),
  refreshToken: z.string(),
  /** Minutes. */
  refreshTokenExpiresIn: z.number(),
  sessionGuid: z.string(),
  accessType: accessTypeSchema,
  hasRestrictedAccess: z.boolean(),
});
export type AuthTokenResult = z.infer<typeof authTokenResultSchema>;

const username = z.string().trim().min(1).max(254);
const password = z.string().min(1).max(1024);

export const passwordSignInRequestSchema = z.strictObject({ username, password });
export type PasswordSignInRequest = z.infer<typeof passwordSignInRequestSchema>;

export const launchTokenSignInRequestSchema = z.strictObject({ token: z.string().min(1).max(256) });
export type LaunchTokenSignInRequest = z.infer<typeof launchTokenSignInRequestSchema>;

/**
 * Refresh and sign-out: the body is optional (a server sees an absent body as null). The refresh token normally travels in the httpOnly
 * cookie scoped to the scope's path; a client without cookies may send it here instead.
 */
export const refreshRequestSchema = z
  .strictObject({ refreshToken: z.string().min(1).max(256).optional() })
  .nullish();

export const passwordResetRequestSchema = z.strictObject({ username });
export type PasswordResetRequest = z.infer<typeof passwordResetRequestSchema>;

const resetToken = z.string().min(1).max(256);

export const passwordChangeRequestSchema = z.union([
  z.strictObject({ username, currentPassword: password, newPassword: password }),
  z.strictObject({ resetToken, newPassword: password }),
]);
export type PasswordChangeRequest = z.infer<typeof passwordChangeRequestSchema>;

/** Whether a reset link still works, asked before the new password is typed; the token travels in the body. */
export const passwordResetCheckRequestSchema = z.strictObject({ resetToken });
export type PasswordResetCheckRequest = z.infer<typeof passwordResetCheckRequestSchema>;

/** The language of the page a consumer signs in from: the code mail speaks it, and a completed sign-in keeps it. */
const pageLanguage = languageSchema.optional();

export const identityTokenSignInRequestSchema = z.strictObject({
  token: tokenParamSchema,
  customerId: customerIdBodySchema,
  subdomain: subdomainParamSchema,
  language: pageLanguage,
});
export type IdentityTokenSignInRequest = z.infer<typeof identityTokenSignInRequestSchema>;

export const lookupSignInRequestSchema = z.strictObject({
  subdomain: subdomainParamSchema,
  customerId: customerIdBodySchema,
  token: tokenParamSchema.nullish(),
  last4Ssn: z
    .string()
    .regex(/^\d{4}$/)
    .nullish(),
  postalCode: z
    .string()
    .regex(/^\d{5}$/)
    .nullish(),
  dateOfBirth: isoDate.nullish(),
  language: pageLanguage,
});
export type LookupSignInRequest = z.infer<typeof lookupSignInRequestSchema>;

export const lookupSignInResponseSchema = z.object({ authToken: authTokenResultSchema });
export type LookupSignInResponse = z.infer<typeof lookupSignInResponseSchema>;

export const mfaQuerySchema = z.strictObject({ mfaCode: z.string().regex(/^\d{6}$/) });

/** The MFA call and its resend: the body is optional, as a POST without one is accepted. */
export const mfaRequestSchema = z.strictObject({ language: pageLanguage }).nullish();

export const launchResultSchema = z.object({ token: z.string() });
export type LaunchResult = z.infer<typeof launchResultSchema>;

const identityTokenDataSchema = z.object({
  paymentAmount: z.number().nullable(),
  schedulePaymentAmount: z.number().nullable(),
  scheduleDownPayment: z.number().nullable(),
  scheduleInterval: z.string().nullable(),
});
export type IdentityTokenData = z.infer<typeof identityTokenDataSchema>;

const signInTypeSchema = z.enum(signInTypes);

export const consumerIdentityTokenSchema = z.object({
  guid: z.string(),
  /** Only for tokens that require verification; never for Direct tokens. */
  shortId: z.string().nullable(),
  consumerId: z.string(),
  customerId: z.number().int(),
  source: z.string(),
  createdAt: isoDateTime,
  expiresAt: isoDateTime,
  lastUsedAt: isoDateTime.nullable(),
  signInType: signInTypeSchema,
  /** Payment data: only for that consumer's own signed-in session, otherwise null. */
  data: identityTokenDataSchema.nullable(),
  /** When the verification of this link, locked after too many wrong answers, opens again; null when it is open. */
  lockedUntil: isoDateTime.nullable().optional(),
  /** The consumer's saved language, null when none is saved. */
  language: languageSchema.nullable().optional(),
});
export type ConsumerIdentityToken = z.infer<typeof consumerIdentityTokenSchema>;

export const identityTokenQuerySchema = z.strictObject({ addAction: queryBooleanSchema.optional() });

export const emailSubscriptionSchema = z.object({
  emailAddress: z.string(),
  unsubscribed: z.boolean(),
  changedAt: isoDateTime,
});
export type EmailSubscription = z.infer<typeof emailSubscriptionSchema>;

export const subscriptionTokenParamSchema = z.string().min(1).max(512);

export const subscriptionUpdateQuerySchema = z.strictObject({
  Token: subscriptionTokenParamSchema,
  EmailAddress: z.string().max(254).optional(),
  Unsubscribed: queryBooleanSchema,
});

export const oneClickUnsubscribeQuerySchema = z.strictObject({ token: subscriptionTokenParamSchema });

/**
 * The public configuration the server writes into `index.html` as
 * `<script type="application/json" id="app-config">` (docs/rules.md#runtime), so the app needs no
 * extra request before it can route.
 */
export const appConfigSchema = z.object({
  /** Parent domain: tenants live at `{subdomain}.{domain}`. */
  domain: z.string(),
  scheme: z.enum(['http', 'https']),
  /** Port in built URLs; empty for the scheme's default port. */
  port: z.string(),
  adminDomainMarkers: z.array(z.string()),
  dashDomainMarkers: z.array(z.string()),
  /** `STAFF_IDLE_MINUTES`: admin and customer pages sign out after this long without activity. */
  staffIdleMinutes: z.number().int().positive().optional(),
});
export type AppConfig = z.infer<typeof appConfigSchema>;
