import { type ErrorBody, type ErrorCode, validatorMessages } from '@entry/domain';

/**
 * Every refusal the server answers: its status, error code and message, by name. It mirrors the
 * statuses of docs/rules.md#errors; the spec leaves the message texts open.
 */

export interface FieldError {
  field: string;
  message: string;
}

/** The one error type the server throws on purpose; the error handler turns it into the error body. */
export class ApiError extends Error {
  /** Sent as `Retry-After`: when the refused caller may try again. */
  retryAfterSeconds: number | undefined;
  /** A refused verification answer: the answers left before a lock, and a lock's end, where known. */
  attempts: AttemptsLeft | undefined;
  /** A call that needs a second factor used lately: the client asks for one and retries. */
  stepUpRequired = false;

  constructor(
    readonly status: number,
    readonly errorCode: ErrorCode,
    message: string,
    readonly errors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** This refusal, saying that the caller may try again at `until`, when that is known. */
  retryAt(until: Date | null, now: Date): this {
    if (until !== null)
      this.retryAfterSeconds = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));
    return this;
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { errorCode: this.errorCode, message: this.message, errors: this.errors };
    if (this.attempts?.triesLeft !== undefined && this.attempts.triesLeft !== null) {
      body.triesLeft = this.attempts.triesLeft;
    }
    if (this.attempts?.lockedUntil) body.lockedUntil = this.attempts.lockedUntil.toISOString();
    if (this.stepUpRequired) body.stepUpRequired = true;
    return body;
  }
}

/** What a verification's budget says after a refused answer, beside the refusal's message. */
export interface AttemptsLeft {
  /** Null when the budget cannot say (the rows vanished meanwhile). */
  triesLeft: number | null;
  lockedUntil: Date | null;
}

interface RefusalRow {
  status: number;
  errorCode: ErrorCode;
  /** A function when the text names the refused value; it takes one argument, the detail. */
  message: string | ((detail: never) => string);
  /** The fields the error items name, each with the refusal's message. */
  fields?: readonly string[];
  /** Sets `stepUpRequired` in the error body. */
  stepUpRequired?: boolean;
}

const linkNotFound = 'This link is not valid.';
const linkExpired = 'This link has expired.';
const unsupportedMediaType = 'The request body has a content type this call does not accept.';

export const refusals = {
  // On every call (docs/rules.md#errors).
  invalidValue: { status: 400, errorCode: 'InvalidValue', message: 'The request is not valid.' },
  invalidJson: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The request body is not valid JSON.',
    fields: ['body'],
  },
  nulCharacter: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The value must not contain a NUL character.',
    fields: ['body'],
  },
  /** The spec has no code of its own for it: the body is bad input, so InvalidValue, as with 415. */
  bodyTooLarge: {
    status: 413,
    errorCode: 'InvalidValue',
    message: 'The request body is too large.',
    fields: ['body'],
  },
  invalidContentLength: {
    status: 400,
    errorCode: 'InvalidValue',
    message: unsupportedMediaType,
    fields: ['body'],
  },
  unsupportedMediaType: {
    status: 415,
    errorCode: 'InvalidValue',
    message: unsupportedMediaType,
    fields: ['body'],
  },
  notAuthorized: {
    status: 401,
    errorCode: 'NotAuthorized',
    message: 'You are not signed in, or your session has ended.',
  },
  notPermitted: { status: 403, errorCode: 'NotPermitted', message: 'Your session does not allow this call.' },
  metricsRefused: {
    status: 403,
    errorCode: 'NotPermitted',
    message:
      'The metrics answer loopback clients that no proxy forwards, or a bearer token equal to METRICS_TOKEN.',
  },
  crossSite: {
    status: 403,
    errorCode: 'NotPermitted',
    message: 'This call is not accepted from another site.',
  },
  routeNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'There is no such API call.' },
  tooManyRequests: {
    status: 429,
    errorCode: 'ToManyRequests',
    message: 'Too many failed attempts from your network. Please try again later.',
  },

  // Staff sign-in, passwords and launch.
  itemNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'The requested item was not found.' },
  invalidSignIn: {
    status: 401,
    errorCode: 'InvalidSignIn',
    message: 'The username or password is not correct.',
  },
  userLocked: {
    status: 401,
    errorCode: 'UserLocked',
    message: 'This account is locked for a while after too many failed attempts. Please try again later.',
  },
  passwordExpired: {
    status: 401,
    errorCode: 'PasswordExpired',
    message: 'Your password has expired. Please choose a new one.',
  },
  wrongCurrentPassword: {
    status: 401,
    errorCode: 'InvalidSignIn',
    message: 'The current password is not correct.',
    fields: ['currentPassword'],
  },
  passwordTooShort: {
    status: 400,
    errorCode: 'WeakPassword',
    message: (minimumLength: number) => `The new password must be at least ${minimumLength} characters long.`,
    fields: ['newPassword'],
  },
  passwordTooGuessable: {
    status: 400,
    errorCode: 'WeakPassword',
    message:
      'The new password is too easy to guess. Use a longer one, for example a few unrelated words; ' +
      'avoid names, dates, common words and keyboard patterns.',
    fields: ['newPassword'],
  },
  invalidResetToken: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'This password reset link has already been used or has expired. Please request a new one.',
  },
  launchTenantNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'No customer has this id.' },
  launchTokenNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'This launch link is not valid.' },
  invalidLaunchToken: {
    status: 400,
    errorCode: 'InvalidState',
    message: 'This launch link has already been used or has expired.',
  },

  // Staff second factors.
  secondFactorStale: {
    status: 403,
    errorCode: 'NotPermitted',
    message: 'Confirm it is you with your second factor first.',
    stepUpRequired: true,
  },
  wrongSecondFactorCode: { status: 401, errorCode: 'InvalidSignIn', message: 'The code is not correct.' },
  secondFactorsOff: {
    status: 403,
    errorCode: 'NotPermitted',
    message: 'Your organization does not use second factors.',
  },
  lastSecondFactor: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'This is your last second factor and your account requires one. Add another one first.',
  },
  totpAlreadyEnrolled: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'An authenticator app is already set up. Remove it before setting up another one.',
  },
  totpNotStarted: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'No authenticator app is waiting to be confirmed. Start the setup again.',
  },
  totpNotEnrolled: { status: 404, errorCode: 'ItemNotFound', message: 'No authenticator app is set up.' },
  wrongTotpConfirmCode: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The code is not correct.',
    fields: ['code'],
  },
  noSecondFactor: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'Set up a second factor first: recovery codes come with it.',
  },

  // Consumers: the domain picker, identity tokens and the consumer sign-in.
  accessTenantNotFound: {
    status: 404,
    errorCode: 'ItemNotFound',
    message: 'No organization uses this domain.',
  },
  logoNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'This organization has no such logo.' },
  linkNotFound: { status: 404, errorCode: 'ItemNotFound', message: linkNotFound },
  /** `/verify` of an expired token. */
  linkExpiredOnVerify: { status: 403, errorCode: 'TokenExpired', message: linkExpired },
  /** A sign-in with an expired token. */
  linkExpired: { status: 404, errorCode: 'TokenExpired', message: linkExpired },
  consumerTenantNotFound: {
    status: 404,
    errorCode: 'ItemNotFound',
    message: 'No organization matches this customer id and domain.',
  },
  notDirectToken: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'This link needs a verification step before signing in.',
    fields: ['token'],
  },
  /** Names, as fields, the verification values the link requires and the request lacks. */
  verificationFieldRequired: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'This value is required for this link.',
  },
  verificationMismatch: {
    status: 409,
    errorCode: 'InvalidSignIn',
    message: 'The information you entered does not match our records.',
  },
  verificationAmbiguous: {
    status: 409,
    errorCode: 'Ambiguous',
    message:
      'The information you entered matches more than one account. Please use the link from your letter.',
  },
  verificationLocked: {
    status: 403,
    errorCode: 'UserLocked',
    message: 'Too many attempts. Verification is locked for a while. Please try again later.',
  },
  noAddressOnFile: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'No e-mail address is on file to send a verification code to.',
  },
  wrongMfaCode: {
    status: 409,
    errorCode: 'InvalidSignIn',
    message: 'The code is not correct, has expired or was already used.',
  },
  mfaNotPending: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'This session has no verification code pending.',
  },
  resendTooSoon: {
    status: 429,
    errorCode: 'ToManyRequests',
    message: 'A new code can be requested once a minute. Please wait a moment and try again.',
  },
  tooManyCodeMails: {
    status: 429,
    errorCode: 'ToManyRequests',
    message: 'Too many codes were sent to you in the last hour. Please try again later.',
  },

  // Staff passkeys.
  passkeyNotRegistered: {
    status: 401,
    errorCode: 'InvalidSignIn',
    message: 'This passkey is not registered.',
  },
  passkeyNotVerified: {
    status: 401,
    errorCode: 'InvalidSignIn',
    message: 'The passkey could not be verified. Please try again.',
  },
  passkeyChallengeInvalid: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'This passkey request has expired or was already answered. Please try again.',
  },
  passkeyRegistrationNotVerified: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The new passkey could not be verified. Please try again.',
    fields: ['response'],
  },
  passkeyAlreadyRegistered: {
    status: 409,
    errorCode: 'DuplicateValue',
    message: 'This passkey is registered already.',
  },
  passkeyNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'You have no passkey with this id.' },

  // E-mail subscriptions.
  subscriptionLinkInvalid: {
    status: 401,
    errorCode: 'NotAuthorized',
    message: 'This subscription link is not valid.',
  },
  subscriptionTenantNotFound: {
    status: 404,
    errorCode: 'ItemNotFound',
    message: 'The organization of this subscription link no longer exists.',
  },

  // Operator commands: tenants, staff users, consumer imports and mailings.
  /** The detail is the domain's own message for the subdomain. */
  invalidSubdomain: {
    status: 400,
    errorCode: 'InvalidValue',
    message: (message: string) => message,
    fields: ['subdomain'],
  },
  reservedSubdomain: {
    status: 400,
    errorCode: 'ReservedValue',
    message: ({ subdomain, reserved }: { subdomain: string; reserved: readonly string[] }) =>
      `The subdomain "${subdomain}" is reserved: it is one of ${reserved.join(', ')} or holds a domain marker.`,
    fields: ['subdomain'],
  },
  invalidTenantName: {
    status: 400,
    errorCode: 'InvalidValue',
    message: (maxLength: number) => `The tenant name must have 1 to ${maxLength} characters.`,
    fields: ['name'],
  },
  invalidContactPhone: {
    status: 400,
    errorCode: 'InvalidValue',
    message:
      'The phone number must be a US number of 10 digits (optionally with a leading 1) or + and 11 digits.',
    fields: ['phone'],
  },
  invalidContactEmail: {
    status: 400,
    errorCode: 'InvalidValue',
    message: validatorMessages.email,
    fields: ['email'],
  },
  invalidContactHours: {
    status: 400,
    errorCode: 'InvalidValue',
    message: (maxLength: number) => `The hours must be one line of at most ${maxLength} characters.`,
    fields: ['hours'],
  },
  invalidWebsite: {
    status: 400,
    errorCode: 'InvalidValue',
    message: (maxLength: number) =>
      `The web address must start with https:// or http:// and have at most ${maxLength} characters.`,
    fields: ['website'],
  },
  /** The detail says what is wrong with the file. */
  invalidLogo: {
    status: 400,
    errorCode: 'InvalidValue',
    message: (problem: string) =>
      `The logo must be a PNG or SVG file of at most 64 KB that only draws: ${problem}.`,
    fields: ['logo'],
  },
  nothingToUpdate: {
    status: 400,
    errorCode: 'InvalidValue',
    message:
      'Name at least one detail to change: --name, --phone, --email, --hours, --website, --logo, --staff-second-factor, --default-language, --debt-collector, --mfa-required or --max-password-age-days.',
  },
  invalidMaxPasswordAge: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The maximum password age must be a whole number of days from 1 to 3650.',
    fields: ['maxPasswordAgeDays'],
  },
  invalidCustomerId: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The customer id must be a positive whole number.',
    fields: ['customerId'],
  },
  duplicateSubdomain: {
    status: 409,
    errorCode: 'DuplicateValue',
    message: (subdomain: string) => `A tenant with the subdomain "${subdomain}" already exists.`,
  },
  duplicateCustomerId: {
    status: 409,
    errorCode: 'DuplicateValue',
    message: (customerId: number) => `A tenant with the customer id ${customerId} already exists.`,
  },
  tenantNotFound: {
    status: 404,
    errorCode: 'ItemNotFound',
    message: (subdomain: string) => `There is no tenant with the subdomain "${subdomain}".`,
  },
  invalidUsername: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The username must have 3 to 100 characters: letters, digits, dots, hyphens, underscores or @.',
    fields: ['username'],
  },
  invalidEmail: {
    status: 400,
    errorCode: 'InvalidValue',
    message: validatorMessages.email,
    fields: ['email'],
  },
  invalidDisplayName: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The display name must have 1 to 200 characters.',
    fields: ['displayName'],
  },
  tenantRequired: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'A customer user belongs to a tenant: name it with --tenant.',
    fields: ['tenant'],
  },
  tenantForbidden: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'An admin user belongs to no tenant: leave out --tenant.',
    fields: ['tenant'],
  },
  duplicateStaffUser: {
    status: 409,
    errorCode: 'DuplicateValue',
    message: ({ kind, username }: { kind: string; username: string }) =>
      `There is already a ${kind} user named "${username}".`,
  },
  // The console's wording of `tenantRequired`, `tenantForbidden` and `nothingToUpdate`: a page has fields, not the CLI's flags.
  consoleOrganizationRequired: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'A customer user belongs to an organization: enter its customer id.',
    fields: ['customerId'],
  },
  consoleOrganizationForbidden: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'An admin belongs to no organization: leave the customer id empty.',
    fields: ['customerId'],
  },
  consoleNothingToUpdate: {
    status: 400,
    errorCode: 'InvalidValue',
    message: "Change at least one of the organization's details before saving.",
  },
  staffUserIdNotFound: { status: 404, errorCode: 'ItemNotFound', message: 'There is no such user.' },
  managerOfAdmin: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'Only a customer user can be a manager.',
    fields: ['manager'],
  },
  invitationAccepted: {
    status: 409,
    errorCode: 'InvalidState',
    message: 'This user has set a password already; there is no invitation to send again.',
  },
  invalidLogoBase64: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'The logo must be a PNG or SVG file in base64.',
    fields: ['logoBase64'],
  },
  staffUserNotFound: {
    status: 404,
    errorCode: 'ItemNotFound',
    message: ({ kind, username }: { kind: string; username: string }) =>
      `There is no ${kind} user named "${username}".`,
  },
  /** Every problem of the file is an error item, naming its line and column. */
  invalidImportFile: {
    status: 400,
    errorCode: 'InvalidImportFile',
    message: (problemCount: number) =>
      problemCount === 1
        ? 'The file has 1 problem; nothing was written.'
        : `The file has ${problemCount} problems; nothing was written.`,
  },
  invalidMailingName: {
    status: 400,
    errorCode: 'InvalidValue',
    message:
      'The mailing name must start with a letter or digit and have at most 100 letters, digits, dots, hyphens or underscores.',
    fields: ['mailing'],
  },
  mailingOfOtherTenant: {
    status: 409,
    errorCode: 'DuplicateValue',
    message: (mailing: string) => `The mailing "${mailing}" belongs to another tenant; choose another name.`,
  },
  mailingNotFound: {
    status: 404,
    errorCode: 'ItemNotFound',
    message: (mailing: string) => `There is no mailing named "${mailing}".`,
  },
  consumerFilterNeedsTenant: {
    status: 400,
    errorCode: 'InvalidValue',
    message: "A consumer id is the organization's own: choose the organization too.",
    fields: ['customerId'],
  },
  invalidAuditCursor: {
    status: 400,
    errorCode: 'InvalidValue',
    message: 'This page of the audit log is no longer valid; start again from the first page.',
    fields: ['cursor'],
  },

  // The server itself.
  notReady: {
    status: 503,
    errorCode: 'ServiceUnavailable',
    message: 'The server is not ready to take requests.',
  },
  databaseUnavailable: {
    status: 503,
    errorCode: 'ServiceUnavailable',
    message: 'The service is briefly unavailable. Please try again in a moment.',
  },
  unknown: {
    status: 500,
    errorCode: 'Unknown',
    message: 'Something went wrong on our side. Please try again later.',
  },
} as const satisfies Record<string, RefusalRow>;

export type RefusalName = keyof typeof refusals;

interface RefusalOptions {
  /** The fields the error items name, instead of the table's. */
  fields?: readonly string[];
  /** Error items with messages of their own, instead of the fields. */
  errors?: FieldError[];
  /** Sent as `Retry-After` when `until` is known. */
  retryAt?: { until: Date | null; now: Date };
  /** The tries left and the lock's end, in the body (`triesLeft`, `lockedUntil`). */
  attempts?: AttemptsLeft;
}

type MessageOf<Name extends RefusalName> = (typeof refusals)[Name]['message'];

/** A refusal whose message names a value takes that value first. */
type RefusalArguments<Name extends RefusalName> =
  MessageOf<Name> extends (detail: infer Detail) => string
    ? [detail: Detail, options?: RefusalOptions]
    : [options?: RefusalOptions];

/** The error that answers the refusal `name`. */
export function refuse<Name extends RefusalName>(name: Name, ...args: RefusalArguments<Name>): ApiError {
  const row: RefusalRow = refusals[name];
  let message: string;
  let options: RefusalOptions | undefined;
  if (typeof row.message === 'string') {
    message = row.message;
    options = args[0] as RefusalOptions | undefined;
  } else {
    message = (row.message as (detail: unknown) => string)(args[0]);
    options = args[1];
  }
  const fields = options?.fields ?? row.fields ?? [];
  const errors = options?.errors ?? fields.map((field) => ({ field, message }));
  const error = new ApiError(row.status, row.errorCode, message, errors);
  if (options?.retryAt !== undefined) error.retryAt(options.retryAt.until, options.retryAt.now);
  error.attempts = options?.attempts;
  error.stepUpRequired = row.stepUpRequired === true;
  return error;
}
