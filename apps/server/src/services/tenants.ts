import { validateSubdomainField } from '@entry/domain';
import { asc, eq, sql } from 'drizzle-orm';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { type TenantSettings, tenants } from '../db/schema.ts';
import { ApiError, invalidValue } from '../errors.ts';

/** Host names the product itself uses on the public domain (DESIGN.md section 5). */
export const reservedSubdomains = ['apps', 'api', 'www'] as const;

/** The first customer id handed out when the operator does not choose one. */
const firstCustomerId = 1001;
const maxNameLength = 200;

export const tenantMessages = {
  reserved: (subdomain: string) =>
    `The subdomain "${subdomain}" is reserved: it is one of ${reservedSubdomains.join(', ')} or holds a domain marker.`,
  duplicateSubdomain: (subdomain: string) => `A tenant with the subdomain "${subdomain}" already exists.`,
  duplicateCustomerId: (customerId: number) => `A tenant with the customer id ${customerId} already exists.`,
  nameRequired: `The tenant name must have 1 to ${maxNameLength} characters.`,
  maxPasswordAge: 'The maximum password age must be a whole number of days from 1 to 3650.',
  customerId: 'The customer id must be a positive whole number.',
  notFound: (subdomain: string) => `There is no tenant with the subdomain "${subdomain}".`,
} as const;

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
  if (subdomainError !== null) throw invalidValue('subdomain', subdomainError.message);
  if (isReservedSubdomain(input.subdomain, config)) {
    const message = tenantMessages.reserved(input.subdomain);
    throw new ApiError(400, 'ReservedValue', message, [{ field: 'subdomain', message }]);
  }
  const name = input.name.trim();
  if (name === '' || name.length > maxNameLength) throw invalidValue('name', tenantMessages.nameRequired);
  const age = input.maxPasswordAgeDays;
  if (age !== undefined && age !== null && (!Number.isInteger(age) || age < 1 || age > 3650)) {
    throw invalidValue('maxPasswordAgeDays', tenantMessages.maxPasswordAge);
  }
  if (input.customerId !== undefined && (!Number.isInteger(input.customerId) || input.customerId < 1)) {
    throw invalidValue('customerId', tenantMessages.customerId);
  }
}

function toTenant(row: typeof tenants.$inferSelect): Tenant {
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
  return db.transaction(async (tx) => {
    const [bySubdomain] = await tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.subdomain, input.subdomain));
    if (bySubdomain !== undefined) {
      throw new ApiError(409, 'DuplicateValue', tenantMessages.duplicateSubdomain(input.subdomain));
    }
    let customerId = input.customerId;
    if (customerId === undefined) {
      const [row] = await tx
        .select({ next: sql<number>`coalesce(max(${tenants.id}), ${firstCustomerId - 1}) + 1` })
        .from(tenants);
      customerId = Number(row?.next ?? firstCustomerId);
    } else {
      const [byId] = await tx.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, customerId));
      if (byId !== undefined) {
        throw new ApiError(409, 'DuplicateValue', tenantMessages.duplicateCustomerId(customerId));
      }
    }
    const [row] = await tx
      .insert(tenants)
      .values({
        id: customerId,
        subdomain: input.subdomain,
        name: input.name.trim(),
        settings: {
          mfaRequired: input.mfaRequired ?? true,
          maxPasswordAgeDays: input.maxPasswordAgeDays ?? null,
        },
        createdAt: clock.now(),
      })
      .returning();
    if (row === undefined) throw new Error('tenant insert returned no row');
    return toTenant(row);
  });
}

export async function listTenants(db: Database): Promise<Tenant[]> {
  const rows = await db.select().from(tenants).orderBy(asc(tenants.id));
  return rows.map(toTenant);
}

/** The tenant of a subdomain; 404 ItemNotFound when there is none. */
export async function tenantBySubdomain(db: Database, subdomain: string): Promise<Tenant> {
  const [row] = await db.select().from(tenants).where(eq(tenants.subdomain, subdomain));
  if (row === undefined) throw new ApiError(404, 'ItemNotFound', tenantMessages.notFound(subdomain));
  return toTenant(row);
}
