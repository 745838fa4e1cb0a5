import { eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { consumers, tenants } from '../db/schema.ts';

/** Where a consumer's mail goes: its address on file (if any) and its tenant. */
export interface ConsumerMailTarget {
  email: string | null;
  tenant: { id: number; subdomain: string };
}

export async function findConsumerMailTarget(
  db: Database,
  consumerId: number,
): Promise<ConsumerMailTarget | null> {
  const [row] = await db
    .select({ email: consumers.email, tenant: { id: tenants.id, subdomain: tenants.subdomain } })
    .from(consumers)
    .innerJoin(tenants, eq(tenants.id, consumers.tenantId))
    .where(eq(consumers.id, consumerId));
  return row ?? null;
}
