import { validatorMessages } from '@entry/domain';
import type { RefusalRow } from './api-error.ts';

/**
 * The refusals of the operator's work on tenants, staff users, consumer imports, mailings and the
 * audit log, raised alike for the console's calls and the CLI's commands (which print them).
 */
export const operatorRefusals = {
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
  duplicateStaffUser: {
    status: 409,
    errorCode: 'DuplicateValue',
    message: ({ kind, username }: { kind: string; username: string }) =>
      `There is already a ${kind} user named "${username}".`,
  },
  // The console's wording of what a command refuses (cli/errors.ts): a page has fields, not the CLI's flags.
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
} as const satisfies Record<string, RefusalRow>;
