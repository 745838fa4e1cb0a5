import { and, asc, eq, sql } from 'drizzle-orm';
import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import { tenants } from '../db/schema.ts';
import type { IdentityTokenRecord } from './identity-tokens.ts';
import { readCacheFor } from './read-cache.ts';

/** What a consumer sign-in needs of a tenant, as an identity-token record carries it. */
export type SignInTenant = IdentityTokenRecord['tenant'];

/** The tenant named by both its id and its subdomain (lower case), or null when they name none together. */
export async function findTenantByIdAndSubdomain(
  db: Database,
  customerId: number,
  subdomain: string,
): Promise<SignInTenant | null> {
  const [tenant] = await db
    .select({ id: tenants.id, subdomain: tenants.subdomain, settings: tenants.settings })
    .from(tenants)
    .where(and(eq(tenants.id, customerId), eq(tenants.subdomain, subdomain)));
  return tenant === undefined
    ? null
    : { id: tenant.id, subdomain: tenant.subdomain, mfaRequired: tenant.settings.mfaRequired };
}

export type TenantRow = typeof tenants.$inferSelect;

export async function findTenantById(db: Database, customerId: number): Promise<TenantRow | undefined> {
  const [tenant] = await db.select().from(tenants).where(eq(tenants.id, customerId));
  return tenant;
}

export async function findTenantBySubdomain(db: Database, subdomain: string): Promise<TenantRow | undefined> {
  const [tenant] = await db.select().from(tenants).where(eq(tenants.subdomain, subdomain));
  return tenant;
}

export function allTenants(db: Database): Promise<TenantRow[]> {
  return db.select().from(tenants).orderBy(asc(tenants.id));
}

/** What the public access lookup tells of a tenant. */
export type AccessTenant = Pick<TenantRow, 'id' | 'subdomain' | 'name'>;

/**
 * The tenant of a (lower-case) subdomain or a customer id, for the access lookup: from the read
 * cache while it is fresh (tenants are never changed in place), else from the database.
 */
export function findAccessTenantCached(
  db: Database,
  clock: Clock,
  by: { subdomain: string } | { customerId: number },
): Promise<AccessTenant | null> {
  const key = 'subdomain' in by ? `subdomain:${by.subdomain}` : `customer:${by.customerId}`;
  return readCacheFor(db, clock).access.get(key, async () => {
    const [tenant] = await db
      .select({ id: tenants.id, subdomain: tenants.subdomain, name: tenants.name })
      .from(tenants)
      .where('subdomain' in by ? eq(tenants.subdomain, by.subdomain) : eq(tenants.id, by.customerId));
    return tenant ?? null;
  });
}

/** A new tenant's row; without an id, the next free one from `firstId`. */
export type NewTenantRow = Omit<TenantRow, 'id'> & { id: number | undefined };

/**
 * Adds a tenant, its id chosen or the next free one from `firstId`; answers which of the subdomain
 * or the id is taken instead, when one is.
 */
export async function insertTenant(
  db: Database,
  row: NewTenantRow,
  firstId: number,
): Promise<TenantRow | { taken: 'subdomain' } | { taken: 'id'; id: number }> {
  return db.transaction(async (tx) => {
    if ((await findTenantBySubdomain(tx, row.subdomain)) !== undefined) return { taken: 'subdomain' };
    let id = row.id;
    if (id === undefined) {
      const [next] = await tx
        .select({ next: sql<number>`coalesce(max(${tenants.id}), ${firstId - 1}) + 1` })
        .from(tenants);
      id = Number(next?.next ?? firstId);
    } else {
      if ((await findTenantById(tx, id)) !== undefined) return { taken: 'id', id };
    }
    const [inserted] = await tx
      .insert(tenants)
      .values({ ...row, id })
      .returning();
    if (inserted === undefined) throw new Error('tenant insert returned no row');
    return inserted;
  });
}
