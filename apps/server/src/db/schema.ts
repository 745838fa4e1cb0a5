import type {
  AccessType,
  IdentityTokenData,
  Language,
  LaunchKind,
  OrganizationContact,
  Scope,
  SignInType,
  StaffKind,
  StaffSecondFactorPolicy,
} from '@entry/domain';
import {
  bigint,
  boolean,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  unique,
  uuid,
} from 'drizzle-orm/pg-core';

/**
 * The drizzle view of the tables that `migrations/*.sql` create. The SQL files are the source of
 * truth for the database (docs/decisions/002-sql-migrations.md); keep both in step.
 */

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const id = () => bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity();
const lockColumns = () => ({
  failedCount: integer('failed_count').notNull().default(0),
  lockedUntil: at('locked_until'),
  lockLevel: integer('lock_level').notNull().default(0),
  lastFailureAt: at('last_failure_at'),
});

/** A staff user's second-factor tries lock apart from the password's (migration 0990). */
const secondFactorLockColumns = () => ({
  secondFactorFailedCount: integer('second_factor_failed_count').notNull().default(0),
  secondFactorLockedUntil: at('second_factor_locked_until'),
  secondFactorLockLevel: integer('second_factor_lock_level').notNull().default(0),
  secondFactorLastFailureAt: at('second_factor_last_failure_at'),
});

export interface TenantSettings {
  mfaRequired: boolean;
  maxPasswordAgeDays: number | null;
  /** Whether its customer users are asked for a second factor; absent means optional (migration 0950). */
  staffSecondFactor?: StaffSecondFactorPolicy;
  /** The language of its consumer pages and mail when the consumer has none; absent means English. */
  defaultLanguage?: Language;
  /** Whether it collects debts, so its consumer mail and pages say so; absent means not. */
  debtCollector?: boolean;
}

/** What a tenant's consumer pages and mail take from its settings, absent values read: no language set is null. */
export function consumerSettingsOf(settings: TenantSettings): {
  defaultLanguage: Language | null;
  debtCollector: boolean;
} {
  return {
    defaultLanguage: settings.defaultLanguage ?? null,
    debtCollector: settings.debtCollector === true,
  };
}

export const tenants = pgTable('tenants', {
  id: integer('id').primaryKey(),
  subdomain: text('subdomain').notNull().unique(),
  name: text('name').notNull(),
  settings: jsonb('settings').$type<TenantSettings>().notNull(),
  /** Null until the operator sets a detail (migration 0940). */
  contact: jsonb('contact').$type<OrganizationContact>(),
  createdAt: at('created_at').notNull().defaultNow(),
});

export type LogoMediaType = 'image/png' | 'image/svg+xml';

/** A tenant's logo, apart from the tenant row so reads of the tenant never carry it (migration 0940). */
export const tenantLogos = pgTable('tenant_logos', {
  tenantId: integer('tenant_id')
    .primaryKey()
    .references(() => tenants.id),
  mediaType: text('media_type').$type<LogoMediaType>().notNull(),
  contentBase64: text('content_base64').notNull(),
  /** Of the content; the logo's address carries it, so a changed logo has a new address. */
  digest: text('digest').notNull(),
  updatedAt: at('updated_at').notNull().defaultNow(),
});

export const staffUsers = pgTable(
  'staff_users',
  {
    id: id(),
    kind: text('kind').$type<StaffKind>().notNull(),
    tenantId: integer('tenant_id').references(() => tenants.id),
    /** Stored lower-cased; sign-in lower-cases what was typed. */
    username: text('username').notNull(),
    email: text('email').notNull(),
    displayName: text('display_name').notNull(),
    roleId: integer('role_id').notNull(),
    passwordHash: text('password_hash').notNull(),
    passwordChangedAt: at('password_changed_at').notNull(),
    ...lockColumns(),
    ...secondFactorLockColumns(),
    disabled: boolean('disabled').notNull().default(false),
    /** A customer user who manages the staff of their own organization in the console (migration 1020). */
    manager: boolean('manager').notNull().default(false),
    invitationPending: boolean('invitation_pending').notNull().default(false),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [unique('staff_users_username_unique').on(table.kind, table.username)],
);

export const consumers = pgTable(
  'consumers',
  {
    id: id(),
    tenantId: integer('tenant_id')
      .notNull()
      .references(() => tenants.id),
    /** The tenant's own id for the consumer. */
    consumerId: text('consumer_id').notNull(),
    name: text('name').notNull(),
    email: text('email'),
    last4SsnHash: text('last4_ssn_hash'),
    postalCodeHash: text('postal_code_hash'),
    dateOfBirthHash: text('date_of_birth_hash'),
    /** Null until the import file or a completed sign-in names it (migration 1010). */
    language: text('language').$type<Language>(),
    ...lockColumns(),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (table) => [unique('consumers_external_id_unique').on(table.tenantId, table.consumerId)],
);

export const identityTokens = pgTable('identity_tokens', {
  guid: uuid('guid').primaryKey(),
  shortId: text('short_id').unique(),
  consumerId: bigint('consumer_id', { mode: 'number' })
    .notNull()
    .references(() => consumers.id),
  tenantId: integer('tenant_id')
    .notNull()
    .references(() => tenants.id),
  source: text('source').notNull(),
  signInType: text('sign_in_type').$type<SignInType>().notNull(),
  data: jsonb('data').$type<IdentityTokenData>(),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
  lastUsedAt: at('last_used_at'),
  revokedAt: at('revoked_at'),
  mailingId: text('mailing_id'),
  ...lockColumns(),
});

/** Names its tenant, user, consumer and token without foreign keys (migration 0500). */
export const sessions = pgTable('sessions', {
  id: uuid('id').primaryKey(),
  scope: text('scope').$type<Scope>().notNull(),
  tenantId: integer('tenant_id'),
  staffUserId: bigint('staff_user_id', { mode: 'number' }),
  consumerId: bigint('consumer_id', { mode: 'number' }),
  identityTokenGuid: uuid('identity_token_guid'),
  accessType: text('access_type').$type<AccessType>().notNull(),
  hasRestrictedAccess: boolean('has_restricted_access').notNull(),
  roleId: integer('role_id'),
  launchedByAdminId: bigint('launched_by_admin_id', { mode: 'number' }),
  /** The admin session that launched this one: this one lives only while that one does (migration 0920). */
  launchedBySessionId: uuid('launched_by_session_id'),
  /** When a second factor was last used in this staff session, for a launch's step-up (migration 0950). */
  secondFactorAt: at('second_factor_at'),
  /** When a staff session was last used, for its idle limit; null in a consumer session (migration 0980). */
  lastUsedAt: at('last_used_at'),
  createdAt: at('created_at').notNull().defaultNow(),
  revokedAt: at('revoked_at'),
  revokedReason: text('revoked_reason'),
});

/** Names its session without a foreign key; deleted with it by the retention job (migration 0600). */
export const refreshTokens = pgTable('refresh_tokens', {
  hash: text('hash').primaryKey(),
  sessionId: uuid('session_id').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
  rotatedAt: at('rotated_at'),
  replacedBy: text('replaced_by'),
});

export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  algorithm: text('algorithm').notNull().default('EdDSA'),
  publicJwk: jsonb('public_jwk').$type<{ kty: string; crv: string; x: string }>().notNull(),
  privatePkcs8: text('private_pkcs8').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  retiredAt: at('retired_at'),
});

export const launchTokens = pgTable('launch_tokens', {
  hash: text('hash').primaryKey(),
  adminId: bigint('admin_id', { mode: 'number' })
    .notNull()
    .references(() => staffUsers.id),
  tenantId: integer('tenant_id')
    .notNull()
    .references(() => tenants.id),
  kind: text('kind').$type<LaunchKind>().notNull(),
  /** The admin session that made the token: the token is void once that session has ended. */
  adminSessionId: uuid('admin_session_id'),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
  usedAt: at('used_at'),
});

/** Names its session without a foreign key; deleted with it by the retention job (migration 0600). */
export const mfaCodes = pgTable('mfa_codes', {
  id: id(),
  sessionId: uuid('session_id').notNull(),
  codeHash: text('code_hash').notNull(),
  expiresAt: at('expires_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  usedAt: at('used_at'),
  createdAt: at('created_at').notNull().defaultNow(),
  /** The language of the page the pending sign-in came from (migration 1010). */
  language: text('language').$type<Language>(),
});

export const passwordResetTokens = pgTable('password_reset_tokens', {
  hash: text('hash').primaryKey(),
  userId: bigint('user_id', { mode: 'number' })
    .notNull()
    .references(() => staffUsers.id),
  createdAt: at('created_at').notNull().defaultNow(),
  expiresAt: at('expires_at').notNull(),
  usedAt: at('used_at'),
});

export const emailSubscriptions = pgTable(
  'email_subscriptions',
  {
    id: id(),
    tenantId: integer('tenant_id')
      .notNull()
      .references(() => tenants.id),
    emailAddress: text('email_address').notNull(),
    unsubscribed: boolean('unsubscribed').notNull().default(false),
    changedAt: at('changed_at').notNull().defaultNow(),
  },
  (table) => [unique('email_subscriptions_address_unique').on(table.tenantId, table.emailAddress)],
);

/**
 * Names its tenant without a foreign key (migration 0500). A mail with `expiresAt` is dropped
 * unsent once it has passed (migration 0930).
 */
export const mailOutbox = pgTable('mail_outbox', {
  id: id(),
  tenantId: integer('tenant_id'),
  toAddress: text('to_address').notNull(),
  subject: text('subject').notNull(),
  textBody: text('text_body').notNull(),
  htmlBody: text('html_body'),
  headers: jsonb('headers').$type<Record<string, string>>().notNull().default({}),
  createdAt: at('created_at').notNull().defaultNow(),
  sentAt: at('sent_at'),
  attempts: integer('attempts').notNull().default(0),
  lastError: text('last_error'),
  nextAttemptAt: at('next_attempt_at').notNull().defaultNow(),
  expiresAt: at('expires_at'),
  /** Null for mail queued before migration 1010. */
  evidence: jsonb('evidence').$type<MailEvidence>(),
  /** Due mails are claimed highest first (migration 0971). */
  priority: integer('priority').notNull().default(0),
});

/** What a queued mail is and carries, for the `mail.sent` audit row of its sending. */
export interface MailEvidence {
  /** What the mail is for, e.g. `consumer-code`, `staff-reset`. */
  kind: string;
  language: Language;
  /** Whether its text and HTML carry the visible opt-out link (12 CFR 1006.6(e)). */
  optOutLink: boolean;
  /** Whether it carries the debt-collector line (12 CFR 1006.18(e)). */
  disclosure: boolean;
}

/** Append-only: a trigger refuses UPDATE and DELETE. */
export const auditLog = pgTable('audit_log', {
  id: id(),
  at: at('at').notNull().defaultNow(),
  event: text('event').notNull(),
  actor: text('actor'),
  tenantId: integer('tenant_id'),
  ip: text('ip'),
  outcome: text('outcome').notNull(),
  detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
});

export type BudgetKind = 'tokenless-identity' | 'consumer-mfa';

/** Budgets with no row of their own to live in (migration 0900); `taken` counts units paid and not given back. */
export const attemptBudgets = pgTable(
  'attempt_budgets',
  {
    kind: text('kind').$type<BudgetKind>().notNull(),
    key: text('key').notNull(),
    taken: integer('taken').notNull().default(0),
    lockLevel: integer('lock_level').notNull().default(0),
    lockedUntil: at('locked_until'),
    lastFailureAt: at('last_failure_at'),
  },
  (table) => [primaryKey({ columns: [table.kind, table.key] })],
);

/** When a consumer's one-time codes of the last hour were mailed (migration 0900). */
export const codeMailBudgets = pgTable('code_mail_budgets', {
  consumerId: bigint('consumer_id', { mode: 'number' }).primaryKey(),
  sentAt: at('sent_at').array().notNull(),
});

/** When a staff user's reset mails of the last hour were made (migration 0970). */
export const resetMailBudgets = pgTable('reset_mail_budgets', {
  staffUserId: bigint('staff_user_id', { mode: 'number' })
    .primaryKey()
    .references(() => staffUsers.id, { onDelete: 'cascade' }),
  sentAt: at('sent_at').array().notNull(),
});

/** The hours in which a link's opening from an address was audited: one audit row each. */
export const linkOpenings = pgTable(
  'link_openings',
  {
    hour: at('hour').notNull(),
    identityTokenGuid: uuid('identity_token_guid').notNull(),
    ip: text('ip').notNull(),
  },
  (table) => [primaryKey({ columns: [table.hour, table.identityTokenGuid, table.ip] })],
);

/** A staff user's authenticator app; unconfirmed until its first code is accepted (migration 0950). */
export const staffTotp = pgTable('staff_totp', {
  staffUserId: bigint('staff_user_id', { mode: 'number' })
    .primaryKey()
    .references(() => staffUsers.id, { onDelete: 'cascade' }),
  /** AES-256-GCM under the configured second-factor key. */
  secretSealed: text('secret_sealed').notNull(),
  confirmedAt: at('confirmed_at'),
  /** The time step of the last accepted code: a code is never accepted twice. */
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: at('created_at').notNull().defaultNow(),
});

export const staffRecoveryCodes = pgTable('staff_recovery_codes', {
  id: id(),
  staffUserId: bigint('staff_user_id', { mode: 'number' })
    .notNull()
    .references(() => staffUsers.id, { onDelete: 'cascade' }),
  codeHash: text('code_hash').notNull(),
  usedAt: at('used_at'),
  createdAt: at('created_at').notNull().defaultNow(),
});

export type PasskeyDeviceType = 'singleDevice' | 'multiDevice';

export const staffPasskeys = pgTable('staff_passkeys', {
  /** base64url, as WebAuthn names the credential. */
  credentialId: text('credential_id').primaryKey(),
  staffUserId: bigint('staff_user_id', { mode: 'number' })
    .notNull()
    .references(() => staffUsers.id, { onDelete: 'cascade' }),
  name: text('name').notNull(),
  /** The COSE public key, base64url. */
  publicKey: text('public_key').notNull(),
  counter: bigint('counter', { mode: 'number' }).notNull().default(0),
  transports: jsonb('transports').$type<string[]>().notNull().default([]),
  deviceType: text('device_type').$type<PasskeyDeviceType>().notNull(),
  backedUp: boolean('backed_up').notNull(),
  createdAt: at('created_at').notNull().defaultNow(),
  lastUsedAt: at('last_used_at'),
});

export type WebauthnPurpose = 'registration' | 'authentication';

/** Single use, five minutes; bound to the session that asked, or to none for a usernameless sign-in. */
export const webauthnChallenges = pgTable('webauthn_challenges', {
  id: uuid('id').primaryKey(),
  challenge: text('challenge').notNull(),
  purpose: text('purpose').$type<WebauthnPurpose>().notNull(),
  kind: text('kind').$type<StaffKind>().notNull(),
  sessionId: uuid('session_id'),
  expiresAt: at('expires_at').notNull(),
  usedAt: at('used_at'),
});
