import type { Language } from '@entry/domain';
import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import {
  type AccessTenant,
  findAccessTenantCached,
  findTenantLogoCached,
  type TenantLogo,
} from '../stores/tenants.ts';

/** The tenant a public access lookup names, by its (lower-case) subdomain or its id; 404 when none. */
export async function accessTenant(
  ctx: AppContext,
  by: { subdomain: string } | { customerId: number },
): Promise<AccessTenant> {
  const tenant = await findAccessTenantCached(ctx.db, ctx.clock, by);
  if (tenant === null) throw refuse('accessTenantNotFound');
  return tenant;
}

/** What the first paint of a tenant's page names: the organization behind the host. */
export interface PageOrganization {
  subdomain: string;
  name: string;
  /** The language of its consumer pages when neither the link nor the browser names one. */
  defaultLanguage: Language;
  /** Whether its pages carry the debt-collector line. */
  debtCollector: boolean;
}

/** The organization a tenant's host names on its pages' first paint; null for a host no tenant uses. */
export async function pageOrganization(ctx: AppContext, subdomain: string): Promise<PageOrganization | null> {
  const tenant = await findAccessTenantCached(ctx.db, ctx.clock, { subdomain });
  return tenant === null
    ? null
    : {
        subdomain: tenant.subdomain,
        name: tenant.name,
        defaultLanguage: tenant.settings.defaultLanguage ?? 'en',
        debtCollector: tenant.settings.debtCollector === true,
      };
}

/** Where a tenant's logo is served, on the tenant's own host: the digest makes each version's address its own. */
export function logoPath(subdomain: string, digest: string): string {
  return `/api/auth/v1/access/${subdomain}/logo/${digest}`;
}

/** A logo document may draw with inline styles and nothing else, and is sandboxed if opened by itself. */
export const logoContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** The tenant's logo of that digest; 404 when the tenant has none, or another one now. */
export async function tenantLogo(ctx: AppContext, subdomain: string, digest: string): Promise<TenantLogo> {
  const logo = await findTenantLogoCached(ctx.db, ctx.clock, subdomain, digest);
  if (logo === null) throw refuse('logoNotFound');
  return logo;
}
