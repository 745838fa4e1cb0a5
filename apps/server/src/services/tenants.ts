import { validateSubdomainField } from '@entry/domain';
import { asc, eq, sql } from 'drizzle-orm';
import type { Clock, Config } from '../config.ts';
import type { Database } from '../db/index.ts';
import { type TenantSettings, tenants } from '../db/schema.ts';
import { refuse } from '../refusals.ts';

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
      throw refuse('duplicateSubdomain', input.subdomain);
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
        throw refuse('duplicateCustomerId', customerId);
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
  if (row === undefined) throw refuse('tenantNotFound', subdomain);
  return toTenant(row);
}
