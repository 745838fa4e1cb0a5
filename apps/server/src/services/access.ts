import type { AppContext } from '../context.ts';
import { refuse } from '../refusals.ts';
import { type AccessTenant, findAccessTenantCached } from '../stores/tenants.ts';

/** The tenant a public access lookup names, by its (lower-case) subdomain or its id; 404 when none. */
export async function accessTenant(
  ctx: AppContext,
  by: { subdomain: string } | { customerId: number },
): Promise<AccessTenant> {
  const tenant = await findAccessTenantCached(ctx.db, ctx.clock, by);
  if (tenant === null) throw refuse('accessTenantNotFound');
  return tenant;
}
