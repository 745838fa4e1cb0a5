import { desc, gt, isNull, or } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { signingKeys } from '../db/schema.ts';

/** The signing keys: every statement on `signing_keys`. */

export type StoredSigningKey = typeof signingKeys.$inferSelect;

export type NewSigningKey = Pick<StoredSigningKey, 'kid' | 'publicJwk' | 'privatePkcs8' | 'createdAt'>;

/** Adds a key unless one of its id is stored already (every instance adds the same configured key). */
export async function insertSigningKey(db: Database, key: NewSigningKey): Promise<void> {
  await db.insert(signingKeys).values(key).onConflictDoNothing({ target: signingKeys.kid });
}

/** Every key, newest first. */
export function allSigningKeys(db: Database): Promise<StoredSigningKey[]> {
  return db.select().from(signingKeys).orderBy(desc(signingKeys.createdAt));
}

/** The keys not retired, or retired after `retiredAfter`, newest first. */
export function signingKeysInUse(db: Database, retiredAfter: Date): Promise<StoredSigningKey[]> {
  return db
    .select()
    .from(signingKeys)
    .where(or(isNull(signingKeys.retiredAt), gt(signingKeys.retiredAt, retiredAfter)))
    .orderBy(desc(signingKeys.createdAt));
}

/** Retires every key in use and adds `key`, together; answers the ids of the keys it retired. */
export async function replaceSigningKeys(db: Database, key: NewSigningKey): Promise<string[]> {
  return db.transaction(async (tx) => {
    const retired = await tx
      .update(signingKeys)
      .set({ retiredAt: key.createdAt })
      .where(isNull(signingKeys.retiredAt))
      .returning({ kid: signingKeys.kid });
    await insertSigningKey(tx, key);
    return retired.map((row) => row.kid);
  });
}
