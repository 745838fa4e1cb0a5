import {
  type Language,
  type OrganizationContact,
  type StaffSecondFactorPolicy,
  validateSubdomainField,
  validators,
} from '@entry/domain';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { TenantSettings } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import {
  allTenants,
  findTenantById,
  findTenantBySubdomain,
  insertTenant,
  type TenantDetailsChange,
  type TenantRow,
  tenantIdsWithLogo,
  updateTenantDetails,
} from '../stores/tenants.ts';
import { checkedLogo } from './tenant-logo.ts';

/** Host names the product itself uses on the public domain (docs/rules.md#hosts). */
const reservedSubdomains = ['apps', 'api', 'www'] as const;

/** The first customer id handed out when the operator does not choose one. */
const firstCustomerId = 1001;
const maxNameLength = 200;
const maxHoursLength = 100;
const maxWebsiteLength = 200;

/** A tenant whose operator has set no contact detail yet. */
export const noContact: OrganizationContact = { phone: null, email: null, hours: null, website: null };

export interface Tenant {
  customerId: number;
  subdomain: string;
  name: string;
  settings: TenantSettings;
  contact: OrganizationContact;
  createdAt: Date;
}

export interface NewTenant {
  subdomain: string;
  name: string;
  /** Chosen by the operator, or the next free one from 1001. */
  customerId?: number;
  mfaRequired?: boolean;
  maxPasswordAgeDays?: number | null;
}

/**
 * Whether a subdomain may not belong to a tenant: the product's own hosts, and anything holding a
 * domain marker, because the domain picker sends such hosts to the admin or customer portal.
 */
function isReservedSubdomain(
  subdomain: string,
  config: Pick<Config, 'adminDomainMarkers' | 'dashDomainMarkers'>,
): boolean {
  if ((reservedSubdomains as readonly string[]).includes(subdomain)) return true;
  return [...config.adminDomainMarkers, ...config.dashDomainMarkers].some((marker) =>
    subdomain.includes(marker),
  );
}

function assertValidNewTenant(input: NewTenant, config: Config): void {
  const subdomainError = validateSubdomainField(input.subdomain);
  if (subdomainError !== null) throw refuse('invalidSubdomain', subdomainError.message);
  if (isReservedSubdomain(input.subdomain, config)) {
    throw refuse('reservedSubdomain', { subdomain: input.subdomain, reserved: reservedSubdomains });
  }
  checkedName(input.name);
  assertValidPasswordAge(input.maxPasswordAgeDays);
  if (input.customerId !== undefined && (!Number.isInteger(input.customerId) || input.customerId < 1)) {
    throw refuse('invalidCustomerId');
  }
}

function assertValidPasswordAge(age: number | null | undefined): void {
  if (age !== undefined && age !== null && (!Number.isInteger(age) || age < 1 || age > 3650)) {
    throw refuse('invalidMaxPasswordAge');
  }
}

function checkedName(input: string): string {
  const name = input.trim();
  if (name === '' || name.length > maxNameLength) throw refuse('invalidTenantName', maxNameLength);
  return name;
}

function toTenant(row: TenantRow): Tenant {
  return {
    customerId: row.id,
    subdomain: row.subdomain,
    name: row.name,
    settings: row.settings,
    contact: row.contact ?? noContact,
    createdAt: row.createdAt,
  };
}

export async function createTenant(
  db: Database,
  config: Config,
  clock: Clock,
  input: NewTenant,
): Promise<Tenant> {
  assertValidNewTenant(input, config);
  const inserted = await insertTenant(
    db,
    {
      id: input.customerId,
      subdomain: input.subdomain,
      name: input.name.trim(),
      settings: {
        mfaRequired: input.mfaRequired ?? true,
        maxPasswordAgeDays: input.maxPasswordAgeDays ?? null,
      },
      contact: null,
      createdAt: clock.now(),
    },
    firstCustomerId,
  );
  if ('taken' in inserted) {
    throw inserted.taken === 'id'
      ? refuse('duplicateCustomerId', inserted.id)
      : refuse('duplicateSubdomain', input.subdomain);
  }
  return toTenant(inserted);
}

export async function listTenants(db: Database): Promise<(Tenant & { hasLogo: boolean })[]> {
  const [rows, withLogo] = await Promise.all([allTenants(db), tenantIdsWithLogo(db)]);
  return rows.map((row) => ({ ...toTenant(row), hasLogo: withLogo.has(row.id) }));
}

/**
 * What an operator changes of a tenant's public details: each detail given replaces the stored
 * one, an empty text clears it; an undefined one stays as it is.
 */
export interface TenantDetailsInput {
  name?: string | undefined;
  phone?: string | undefined;
  email?: string | undefined;
  hours?: string | undefined;
  website?: string | undefined;
  /** The logo file's content, or null to remove the logo. */
  logo?: Buffer | null | undefined;
  /** Whether the tenant's customer users are asked for a second factor. */
  staffSecondFactor?: StaffSecondFactorPolicy | undefined;
  /** The language of its consumer pages and mail when the consumer has none. */
  defaultLanguage?: Language | undefined;
  /** Whether it collects debts: its consumer mail and pages then say so. */
  debtCollector?: boolean | undefined;
  /** Whether its consumers get one-time codes after verification. */
  mfaRequired?: boolean | undefined;
  /** After how many days its staff passwords expire; null for never. */
  maxPasswordAgeDays?: number | null | undefined;
}

/** A contact detail as given: trimmed, empty meaning none, checked otherwise. */
function contactValue(value: string, check: (text: string) => boolean, refusal: () => Error): string | null {
  const text = value.trim();
  if (text === '') return null;
  if (!check(text)) throw refusal();
  return text;
}

function isWebAddress(text: string): boolean {
  if (text.length > maxWebsiteLength || !/^https?:\/\/[^\s]+$/i.test(text)) return false;
  return URL.canParse(text);
}

/** The contact after the change, every given detail checked; null when no detail is given. */
function changedContact(current: OrganizationContact, input: TenantDetailsInput): OrganizationContact | null {
  const given = (['phone', 'email', 'hours', 'website'] as const).filter((key) => input[key] !== undefined);
  if (given.length === 0) return null;
  const contact = { ...current };
  if (input.phone !== undefined) {
    contact.phone = contactValue(
      input.phone,
      (text) => validators.phone(text) === null,
      () => refuse('invalidContactPhone'),
    );
  }
  if (input.email !== undefined) {
    contact.email = contactValue(
      input.email,
      (text) => validators.email(text) === null,
      () => refuse('invalidContactEmail'),
    );
  }
  if (input.hours !== undefined) {
    contact.hours = contactValue(
      input.hours,
      (text) => text.length <= maxHoursLength && !/[\r\n]/.test(text),
      () => refuse('invalidContactHours', maxHoursLength),
    );
  }
  if (input.website !== undefined) {
    contact.website = contactValue(input.website, isWebAddress, () =>
      refuse('invalidWebsite', maxWebsiteLength),
    );
  }
  return contact;
}

/**
 * Changes a tenant's name, contact details, logo and settings (`tenant update`): every given detail is
 * checked before anything is written, and all are written together; with none given, nothing is
 * (`changed` is empty, for the caller to refuse in its own words).
 */
export async function updateTenant(
  db: Database,
  clock: Clock,
  subdomain: string,
  input: TenantDetailsInput,
): Promise<{ tenant: Tenant; changed: string[] }> {
  const current = await tenantBySubdomain(db, subdomain);
  const change: TenantDetailsChange = {};
  const changed: string[] = [];
  if (input.name !== undefined) {
    change.name = checkedName(input.name);
    changed.push('name');
  }
  const contact = changedContact(current.contact, input);
  if (contact !== null) {
    change.contact = contact;
    changed.push('contact');
  }
  if (input.logo !== undefined) {
    change.logo = input.logo === null ? null : checkedLogo(input.logo);
    changed.push('logo');
  }
  if (input.staffSecondFactor !== undefined) {
    change.staffSecondFactor = input.staffSecondFactor;
    changed.push('staffSecondFactor');
  }
  if (input.defaultLanguage !== undefined) {
    change.defaultLanguage = input.defaultLanguage;
    changed.push('defaultLanguage');
  }
  if (input.debtCollector !== undefined) {
    change.debtCollector = input.debtCollector;
    changed.push('debtCollector');
  }
  if (input.mfaRequired !== undefined) {
    change.mfaRequired = input.mfaRequired;
    changed.push('mfaRequired');
  }
  if (input.maxPasswordAgeDays !== undefined) {
    assertValidPasswordAge(input.maxPasswordAgeDays);
    change.maxPasswordAgeDays = input.maxPasswordAgeDays;
    changed.push('maxPasswordAgeDays');
  }
  if (changed.length === 0) return { tenant: current, changed };
  const row = await updateTenantDetails(db, subdomain, change, clock.now());
  if (row === undefined) throw refuse('tenantNotFound', subdomain);
  return { tenant: toTenant(row), changed };
}

/** The tenant of a customer id; 404 ItemNotFound when there is none. */
export async function tenantByCustomerId(db: Database, customerId: number): Promise<Tenant> {
  const row = await findTenantById(db, customerId);
  if (row === undefined) throw refuse('launchTenantNotFound');
  return toTenant(row);
}

/** The tenant of a subdomain; 404 ItemNotFound when there is none. */
export async function tenantBySubdomain(db: Database, subdomain: string): Promise<Tenant> {
  const row = await findTenantBySubdomain(db, subdomain);
  if (row === undefined) throw refuse('tenantNotFound', subdomain);
  return toTenant(row);
}
