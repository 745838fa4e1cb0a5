import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { tenants } from '../db/schema.ts';
import type { IdentityTokenRecord } from './identity-tokens.ts';

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
