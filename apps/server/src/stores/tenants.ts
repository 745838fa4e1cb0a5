import type { Language, OrganizationContact, StaffSecondFactorPolicy } from '@entry/domain';
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Clock } from '../config.ts';
import type { Database } from '../db/index.ts';
import {
  consumerSettingsOf,
  type LogoMediaType,
  type TenantSettings,
  tenantLogos,
  tenants,
} from '../db/schema.ts';
import type { IdentityTokenRecord } from './identity-tokens.ts';
import { cachePerHandle } from './read-cache.ts';

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
    : {
        id: tenant.id,
        subdomain: tenant.subdomain,
        mfaRequired: tenant.settings.mfaRequired,
        ...consumerSettingsOf(tenant.settings),
      };
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

/** What the public access lookup tells of a tenant: its logo by its address's parts only. */
export type AccessTenant = Pick<TenantRow, 'id' | 'subdomain' | 'name' | 'contact' | 'settings'> & {
  logo: { mediaType: LogoMediaType; digest: string } | null;
};

/** The access lookup's tenants by `subdomain:<name>` or `customer:<id>`. */
const accessCache = cachePerHandle<AccessTenant>();

/**
 * The tenant of a (lower-case) subdomain or a customer id, for the access lookup: from the read
 * cache while it is fresh, else from the database. `updateTenantDetails` forgets the entries of
 * the tenant it changes; another process's change shows once the entries have expired.
 */
export function findAccessTenantCached(
  db: Database,
  clock: Clock,
  by: { subdomain: string } | { customerId: number },
): Promise<AccessTenant | null> {
  const key = 'subdomain' in by ? `subdomain:${by.subdomain}` : `customer:${by.customerId}`;
  return accessCache.of(db, clock).get(key, async () => {
    const [tenant] = await db
      .select({
        id: tenants.id,
        subdomain: tenants.subdomain,
        name: tenants.name,
        contact: tenants.contact,
        settings: tenants.settings,
        logoMediaType: tenantLogos.mediaType,
        logoDigest: tenantLogos.digest,
      })
      .from(tenants)
      .leftJoin(tenantLogos, eq(tenantLogos.tenantId, tenants.id))
      .where('subdomain' in by ? eq(tenants.subdomain, by.subdomain) : eq(tenants.id, by.customerId));
    if (tenant === undefined) return null;
    const { logoMediaType, logoDigest, ...rest } = tenant;
    return {
      ...rest,
      logo:
        logoMediaType === null || logoDigest === null
          ? null
          : { mediaType: logoMediaType, digest: logoDigest },
    };
  });
}

export interface TenantLogo {
  mediaType: LogoMediaType;
  content: Buffer;
}

/** Tenants' logos by `<subdomain>:<digest>`; few, as there are few tenants, each a few kilobytes. */
const logoCache = cachePerHandle<TenantLogo>(100);

/**
 * After a change to a tenant's public details (`tenant update`): its next lookup goes to the
 * database, and no replaced or removed logo is served from here any more.
 */
function forgetAccessTenant(db: Database, tenant: { subdomain: string; customerId: number }): void {
  accessCache.made(db)?.delete([`subdomain:${tenant.subdomain}`, `customer:${tenant.customerId}`]);
  logoCache.made(db)?.clear();
}

/**
 * The logo of a (lower-case) subdomain when its digest is `digest`, through the read cache: a
 * letter day's many first visits each load it once, then the browser keeps it.
 */
export function findTenantLogoCached(
  db: Database,
  clock: Clock,
  subdomain: string,
  digest: string,
): Promise<TenantLogo | null> {
  return logoCache.of(db, clock).get(`${subdomain}:${digest}`, async () => {
    const [logo] = await db
      .select({ mediaType: tenantLogos.mediaType, contentBase64: tenantLogos.contentBase64 })
      .from(tenantLogos)
      .innerJoin(tenants, eq(tenants.id, tenantLogos.tenantId))
      .where(and(eq(tenants.subdomain, subdomain), eq(tenantLogos.digest, digest)));
    return logo === undefined
      ? null
      : { mediaType: logo.mediaType, content: Buffer.from(logo.contentBase64, 'base64') };
  });
}

/** A logo to store: the digest names its content. */
export interface NewTenantLogo {
  mediaType: LogoMediaType;
  content: Buffer;
  digest: string;
}

/** What `tenant update` changes; a key left out stays as it is, a null logo is removed. */
export interface TenantDetailsChange {
  name?: string;
  contact?: OrganizationContact;
  logo?: NewTenantLogo | null;
  staffSecondFactor?: StaffSecondFactorPolicy;
  defaultLanguage?: Language;
  debtCollector?: boolean;
  mfaRequired?: boolean;
  maxPasswordAgeDays?: number | null;
}

/**
 * Changes a tenant's name, contact, logo and settings together; undefined when no tenant has the subdomain.
 * The access lookup's cached entries of the tenant go at once.
 */
export async function updateTenantDetails(
  db: Database,
  subdomain: string,
  change: TenantDetailsChange,
  now: Date,
): Promise<TenantRow | undefined> {
  const settings: Partial<TenantSettings> = {
    ...(change.staffSecondFactor === undefined ? {} : { staffSecondFactor: change.staffSecondFactor }),
    ...(change.defaultLanguage === undefined ? {} : { defaultLanguage: change.defaultLanguage }),
    ...(change.debtCollector === undefined ? {} : { debtCollector: change.debtCollector }),
    ...(change.mfaRequired === undefined ? {} : { mfaRequired: change.mfaRequired }),
    ...(change.maxPasswordAgeDays === undefined ? {} : { maxPasswordAgeDays: change.maxPasswordAgeDays }),
  };
  const columns = {
    ...(change.name === undefined ? {} : { name: change.name }),
    ...(change.contact === undefined ? {} : { contact: change.contact }),
    ...(Object.keys(settings).length === 0
      ? {}
      : { settings: sql<TenantSettings>`${tenants.settings} || ${JSON.stringify(settings)}::jsonb` }),
  };
  const updated = await db.transaction(async (tx) => {
    const [row] =
      Object.keys(columns).length === 0
        ? await tx.select().from(tenants).where(eq(tenants.subdomain, subdomain)).for('update')
        : await tx.update(tenants).set(columns).where(eq(tenants.subdomain, subdomain)).returning();
    if (row === undefined) return undefined;
    if (change.logo === null) {
      await tx.delete(tenantLogos).where(eq(tenantLogos.tenantId, row.id));
    } else if (change.logo !== undefined) {
      const logo = {
        mediaType: change.logo.mediaType,
        contentBase64: change.logo.content.toString('base64'),
        digest: change.logo.digest,
        updatedAt: now,
      };
      await tx
        .insert(tenantLogos)
        .values({ tenantId: row.id, ...logo })
        .onConflictDoUpdate({ target: tenantLogos.tenantId, set: logo });
    }
    return row;
  });
  if (updated !== undefined) forgetAccessTenant(db, { subdomain: updated.subdomain, customerId: updated.id });
  return updated;
}

/** Whether the tenant has a logo, for the operator's list. */
export async function tenantIdsWithLogo(db: Database): Promise<Set<number>> {
  const rows = await db.select({ tenantId: tenantLogos.tenantId }).from(tenantLogos);
  return new Set(rows.map((row) => row.tenantId));
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
