import { and, eq } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { emailSubscriptions } from '../db/schema.ts';
import { findTenantById } from './tenants.ts';

/**
 * Email subscriptions: every statement on `email_subscriptions`. One record per tenant and
 * (normalised) address, created on first use; `changedAt` is set when the record is created and
 * whenever `unsubscribed` changes (docs/rules.md#subscriptions).
 */

export type SubscriptionRow = typeof emailSubscriptions.$inferSelect;

/** A tenant and an address, normalised. */
export interface SubscriptionKey {
  tenantId: number;
  emailAddress: string;
}

const keyCondition = (key: SubscriptionKey) =>
  and(eq(emailSubscriptions.tenantId, key.tenantId), eq(emailSubscriptions.emailAddress, key.emailAddress));

/** The record of a tenant's address, created subscribed on first use; null for an unknown tenant. */
export async function findOrCreateSubscriptionRow(
  db: Database,
  key: SubscriptionKey,
  now: Date,
): Promise<SubscriptionRow | null> {
  if ((await findTenantById(db, key.tenantId)) === undefined) return null;
  await db
    .insert(emailSubscriptions)
    .values({
      tenantId: key.tenantId,
      emailAddress: key.emailAddress,
      unsubscribed: false,
      changedAt: now,
    })
    .onConflictDoNothing();
  const [row] = await db.select().from(emailSubscriptions).where(keyCondition(key));
  return row ?? null;
}

/** Sets `unsubscribed`; null for an unknown tenant. `changed` says whether the value moved. */
export async function setUnsubscribed(
  db: Database,
  key: SubscriptionKey,
  unsubscribed: boolean,
  now: Date,
): Promise<{ row: SubscriptionRow; changed: boolean } | null> {
  return db.transaction(async (tx) => {
    if ((await findTenantById(tx, key.tenantId)) === undefined) return null;
    const [created] = await tx
      .insert(emailSubscriptions)
      .values({
        tenantId: key.tenantId,
        emailAddress: key.emailAddress,
        unsubscribed,
        changedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (created !== undefined) return { row: created, changed: true };
    const [current] = await tx.select().from(emailSubscriptions).where(keyCondition(key)).for('update');
    if (current === undefined) return null;
    if (current.unsubscribed === unsubscribed) return { row: current, changed: false };
    const [updated] = await tx
      .update(emailSubscriptions)
      .set({ unsubscribed, changedAt: now })
      .where(eq(emailSubscriptions.id, current.id))
      .returning();
    return updated === undefined ? null : { row: updated, changed: true };
  });
}
