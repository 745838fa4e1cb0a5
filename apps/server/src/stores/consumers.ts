import type { Language } from '@entry/domain';
import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../db/index.ts';
import { consumerSettingsOf, consumers, tenants } from '../db/schema.ts';
import { executeRows } from '../db/sql.ts';

/** Where a consumer's mail goes: its address on file (if any), its language and its tenant. */
export interface ConsumerMailTarget {
  email: string | null;
  language: Language | null;
  tenant: { id: number; subdomain: string; defaultLanguage: Language | null; debtCollector: boolean };
}

export async function findConsumerMailTarget(
  db: Database,
  consumerId: number,
): Promise<ConsumerMailTarget | null> {
  const [row] = await db
    .select({
      email: consumers.email,
      language: consumers.language,
      tenant: { id: tenants.id, subdomain: tenants.subdomain, settings: tenants.settings },
    })
    .from(consumers)
    .innerJoin(tenants, eq(tenants.id, consumers.tenantId))
    .where(eq(consumers.id, consumerId));
  if (row === undefined) return null;
  const { settings, ...tenant } = row.tenant;
  return {
    email: row.email,
    language: row.language,
    tenant: { ...tenant, ...consumerSettingsOf(settings) },
  };
}

/** Saves the language a consumer signed in with; a write only when it changes it. */
export async function saveConsumerLanguage(
  db: Database,
  consumerId: number,
  language: Language,
): Promise<void> {
  await db
    .update(consumers)
    .set({ language })
    .where(and(eq(consumers.id, consumerId), sql`${consumers.language} IS DISTINCT FROM ${language}`));
}

/** A consumer of a mailing's file: its key, and which verification values it has on file. */
export interface ConsumerOnFile {
  id: number;
  last4Ssn: boolean;
  postalCode: boolean;
  dateOfBirth: boolean;
}

/** The tenant's consumers of these ids, by id. */
export async function consumersOnFile(
  db: Database,
  tenantId: number,
  ids: readonly string[],
): Promise<Map<string, ConsumerOnFile>> {
  const rows = await db
    .select({
      id: consumers.id,
      consumerId: consumers.consumerId,
      last4SsnHash: consumers.last4SsnHash,
      postalCodeHash: consumers.postalCodeHash,
      dateOfBirthHash: consumers.dateOfBirthHash,
    })
    .from(consumers)
    .where(
      and(
        eq(consumers.tenantId, tenantId),
        // One JSON parameter rather than a thousand bind parameters.
        sql`${consumers.consumerId} IN (SELECT json_array_elements_text(${JSON.stringify(ids)}::json))`,
      ),
    );
  return new Map(
    rows.map((row) => [
      row.consumerId,
      {
        id: row.id,
        last4Ssn: row.last4SsnHash !== null,
        postalCode: row.postalCodeHash !== null,
        dateOfBirth: row.dateOfBirthHash !== null,
      },
    ]),
  );
}

/** A consumer as the batch insert takes it: verification values already hashed. */
export interface ImportedConsumer {
  consumer_id: string;
  name: string;
  email: string;
  last4_ssn_hash: string;
  postal_code_hash: string;
  date_of_birth_hash: string;
  /** Null keeps the language a consumer already has. */
  language: Language | null;
}

/** Writes a batch of an import; counts the consumers it created and the ones it updated. */
export type ImportBatchWriter = (
  batch: readonly ImportedConsumer[],
) => Promise<{ created: number; updated: number }>;

/**
 * Runs `work` in one transaction with a writer of the tenant's consumers, created at `now`:
 * anything it throws writes nothing.
 */
export async function inConsumerImport<T>(
  db: Database,
  tenantId: number,
  now: Date,
  work: (writeBatch: ImportBatchWriter) => Promise<T>,
): Promise<T> {
  return db.transaction((tx) => work((batch) => upsertConsumers(tx, tenantId, now, batch)));
}

/**
 * Inserts new consumers and updates the ones the tenant already has; counts each kind. The batch
 * travels as one JSON parameter that PostgreSQL unpacks (json_to_recordset): a multi-row
 * INSERT ... ON CONFLICT DO UPDATE without thousands of bind parameters, several times faster,
 * above all on PGlite.
 */
async function upsertConsumers(
  db: Database,
  tenantId: number,
  now: Date,
  batch: readonly ImportedConsumer[],
): Promise<{ created: number; updated: number }> {
  const rows = await executeRows<{ inserted: boolean }>(
    db,
    sql`
    INSERT INTO consumers
      (tenant_id, consumer_id, name, email, last4_ssn_hash, postal_code_hash, date_of_birth_hash, language, created_at)
    SELECT ${tenantId}, r.consumer_id, r.name, r.email, r.last4_ssn_hash, r.postal_code_hash,
      r.date_of_birth_hash, r.language, ${now.toISOString()}::timestamptz
    FROM json_to_recordset(${JSON.stringify(batch)}::json) AS r(consumer_id text, name text, email text,
      last4_ssn_hash text, postal_code_hash text, date_of_birth_hash text, language text)
    ON CONFLICT (tenant_id, consumer_id) DO UPDATE SET
      name = excluded.name,
      email = excluded.email,
      last4_ssn_hash = excluded.last4_ssn_hash,
      postal_code_hash = excluded.postal_code_hash,
      date_of_birth_hash = excluded.date_of_birth_hash,
      language = coalesce(excluded.language, consumers.language)
    -- xmax is 0 on a freshly inserted row and set on a row the conflict updated.
    RETURNING (xmax = 0) AS inserted`,
  );
  const created = rows.filter((row) => row.inserted).length;
  return { created, updated: rows.length - created };
}

/** How many consumers each tenant has on file, by tenant id. */
export async function consumerCountsByTenant(db: Database): Promise<Map<number, number>> {
  const rows = await db
    .select({ tenantId: consumers.tenantId, count: sql<number>`count(*)`.mapWith(Number) })
    .from(consumers)
    .groupBy(consumers.tenantId);
  return new Map(rows.map((row) => [row.tenantId, row.count]));
}
