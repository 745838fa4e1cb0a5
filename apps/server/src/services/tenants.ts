import { validateSubdomainField } from '@entry/domain';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import type { TenantSettings } from '../db/schema.ts';
import { refuse } from '../refusals.ts';
import { allTenants, findTenantBySubdomain, insertTenant, type TenantRow } from '../stores/tenants.ts';

/** Host names the product itself uses on the public domain (DESIGN.md section 5). */
export const reservedSubdomains = ['apps', 'api', 'www'] as const;

/** The first customer id handed out when the operator does not choose one. */
const firstCustomerId = 1001;
const maxNameLength = 200;

export interface Tenant {
  customerId: number;
  subdomain: string;
  name: string;
  settings: TenantSettings;
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
export function isReservedSubdomain(
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
  const name = input.name.trim();
  if (name === '' || name.length > maxNameLength) throw refuse('invalidTenantName', maxNameLength);
  const age = input.maxPasswordAgeDays;
  if (age !== undefined && age !== null && (!Number.isInteger(age) || age < 1 || age > 3650)) {
    throw refuse('invalidMaxPasswordAge');
  }
  if (input.customerId !== undefined && (!Number.isInteger(input.customerId) || input.customerId < 1)) {
    throw refuse('invalidCustomerId');
  }
}

function toTenant(row: TenantRow): Tenant {
  return {
    customerId: row.id,
    subdomain: row.subdomain,
    name: row.name,
    settings: row.settings,
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

export async function listTenants(db: Database): Promise<Tenant[]> {
  return (await allTenants(db)).map(toTenant);
}

/** The tenant of a subdomain; 404 ItemNotFound when there is none. */
export async function tenantBySubdomain(db: Database, subdomain: string): Promise<Tenant> {
  const row = await findTenantBySubdomain(db, subdomain);
  if (row === undefined) throw refuse('tenantNotFound', subdomain);
  return toTenant(row);
}
