import { z } from 'zod';
import { customerIdSchema, organizationContactSchema } from './schemas.ts';
import { staffSecondFactorPolicySchema } from './second-factors.ts';

/**
 * The operator console's calls (`/api/console/v1/`): organizations (admins only) and staff users
 * (admins for every organization, a customer manager for their own).
 */

const isoDateTime = z.iso.datetime();
const staffKindSchema = z.enum(['admin', 'customer']);
export type ConsoleStaffKind = z.infer<typeof staffKindSchema>;
/** A tenant's id in a JSON body. */
const customerIdBodySchema = z.number().int().positive().max(2_147_483_647);
const maxPasswordAgeDaysSchema = z.number().int().min(1).max(3650).nullable();

/** Who the console serves in a session: an admin, a manager, or a customer user it does not serve. */
export const consoleAccessSchema = z.object({
  kind: staffKindSchema,
  manager: z.boolean(),
  /** Whether the console's pages are open to the session. */
  console: z.boolean(),
});
export type ConsoleAccess = z.infer<typeof consoleAccessSchema>;

export const consoleOrganizationSchema = z.object({
  customerId: z.number().int(),
  subdomain: z.string(),
  name: z.string(),
  contact: organizationContactSchema,
  hasLogo: z.boolean(),
  /** One-time codes after a consumer's verification. */
  consumerMfaRequired: z.boolean(),
  staffSecondFactor: staffSecondFactorPolicySchema,
  /** Staff passwords expire after this many days; null for never. */
  maxPasswordAgeDays: z.number().int().nullable(),
  consumerCount: z.number().int().nonnegative(),
  staffCount: z.number().int().nonnegative(),
  /** Where its consumers sign in, e.g. `https://sender.example.com/c/`. */
  consumerPortalUrl: z.string(),
  createdAt: isoDateTime,
});
export type ConsoleOrganization = z.infer<typeof consoleOrganizationSchema>;

export const consoleOrganizationListSchema = z.object({ organizations: z.array(consoleOrganizationSchema) });
export type ConsoleOrganizationList = z.infer<typeof consoleOrganizationListSchema>;

/** Matches name or subdomain, ignoring case. */
export const consoleSearchQuerySchema = z.strictObject({ search: z.string().trim().max(100).optional() });

export const consoleOrganizationCreateSchema = z.strictObject({
  subdomain: z.string().trim().toLowerCase().max(63),
  name: z.string().max(200),
  customerId: customerIdBodySchema.optional(),
  consumerMfaRequired: z.boolean().optional(),
  maxPasswordAgeDays: maxPasswordAgeDaysSchema.optional(),
});
export type ConsoleOrganizationCreate = z.infer<typeof consoleOrganizationCreateSchema>;

/** Each detail given replaces the stored one (an empty contact text clears it); one left out stays. */
export const consoleOrganizationUpdateSchema = z.strictObject({
  name: z.string().max(200).optional(),
  phone: z.string().max(40).optional(),
  email: z.string().max(254).optional(),
  hours: z.string().max(100).optional(),
  website: z.string().max(200).optional(),
  /** A PNG or SVG in base64, or null to remove the logo. */
  logoBase64: z.string().max(90_000).nullable().optional(),
  consumerMfaRequired: z.boolean().optional(),
  staffSecondFactor: staffSecondFactorPolicySchema.optional(),
  maxPasswordAgeDays: maxPasswordAgeDaysSchema.optional(),
});
export type ConsoleOrganizationUpdate = z.infer<typeof consoleOrganizationUpdateSchema>;

export const consoleStaffUserSchema = z.object({
  id: z.number().int(),
  kind: staffKindSchema,
  /** The organization of a customer user; null for an admin. */
  customerId: z.number().int().nullable(),
  username: z.string(),
  email: z.string(),
  displayName: z.string(),
  manager: z.boolean(),
  disabled: z.boolean(),
  /** Until when failed sign-ins lock the account (password or second factor); null when not locked. */
  lockedUntil: isoDateTime.nullable(),
  authenticatorApp: z.boolean(),
  passkeys: z.number().int().nonnegative(),
  lastSignInAt: isoDateTime.nullable(),
  /** The user has not set a first password yet. */
  invitationPending: z.boolean(),
  createdAt: isoDateTime,
});
export type ConsoleStaffUser = z.infer<typeof consoleStaffUserSchema>;

export const consoleStaffListSchema = z.object({ users: z.array(consoleStaffUserSchema) });
export type ConsoleStaffList = z.infer<typeof consoleStaffListSchema>;

export const consoleStaffQuerySchema = z.strictObject({
  kind: staffKindSchema.optional(),
  customerId: customerIdSchema.optional(),
  /** Matches username, display name or e-mail address, ignoring case. */
  search: z.string().trim().max(100).optional(),
});
export type ConsoleStaffQuery = z.infer<typeof consoleStaffQuerySchema>;

export const consoleInvitationSchema = z.strictObject({
  kind: staffKindSchema,
  /** The organization of a customer user; a manager's own when left out. */
  customerId: customerIdBodySchema.optional(),
  username: z.string().max(100),
  email: z.string().max(254),
  displayName: z.string().max(200).optional(),
  manager: z.boolean().optional(),
});
export type ConsoleInvitation = z.infer<typeof consoleInvitationSchema>;

export const consoleInvitationResultSchema = z.object({
  user: consoleStaffUserSchema,
  /** When the mailed one-use link stops working. */
  invitationExpiresAt: isoDateTime,
});

export const consoleManagerChangeSchema = z.strictObject({ manager: z.boolean() });

export const consoleStaffUserIdSchema = z.strictObject({ userId: z.coerce.number().int().positive() });
export const consoleCustomerIdParamSchema = z.strictObject({ customerId: customerIdSchema });

/** The staff actions of the console that take no body; each answers the user as it is after it. */
export const consoleStaffActions = [
  'disable',
  'enable',
  'unlock',
  'reset-second-factors',
  'resend-invitation',
] as const;
export type ConsoleStaffAction = (typeof consoleStaffActions)[number];
