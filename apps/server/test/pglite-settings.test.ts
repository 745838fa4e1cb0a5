import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { executeStatement, statement } from '../src/db/database.ts';
import { vacuumWhereDue } from '../src/db/embedded-vacuum.ts';
import { type DatabaseHandle, openDatabase, pgliteSharedBuffers } from '../src/db/index.ts';

/** Opens PGlite in a fresh data directory, as the server does without DATABASE_URL, for `use`. */
async function withEmbeddedDatabase(use: (handle: DatabaseHandle) => Promise<void>): Promise<void> {
  const handle = await openDatabase({
    databaseUrl: undefined,
    dataDir: mkdtempSync(path.join(tmpdir(), 'entry-pglite-')),
  });
  try {
    await use(handle);
  } finally {
    await handle.close();
  }
}

describe('the embedded PGlite database', () => {
  it('runs with the small buffer cache that keeps the server process small', () =>
    withEmbeddedDatabase(async ({ db }) => {
      // Both drivers answer raw SQL with `{ rows }`; the shared database type leaves it unknown.
      const result = (await db.execute(sql`SHOW shared_buffers`)) as {
        rows: { shared_buffers: string }[];
      };
      expect(result.rows[0]?.shared_buffers).toBe(pgliteSharedBuffers);
    }));

  it('runs statements on a thread of its own, so the server keeps serving while one runs', () =>
    withEmbeddedDatabase(async ({ db }) => {
      let turns = 0;
      let statementRunning = true;
      const turn = () => {
        if (!statementRunning) return;
        turns += 1;
        setImmediate(turn);
      };
      setImmediate(turn);
      await db.execute(sql`SELECT count(*) FROM generate_series(1, 2000000)`);
      statementRunning = false;
      // On the server's thread the event loop would have turned once before the statement, not again until it ended.
      expect(turns).toBeGreaterThan(50);
    }));

  it("passes PostgreSQL's error code and detail back to the caller", () =>
    withEmbeddedDatabase(async ({ db }) => {
      await db.execute(sql`INSERT INTO schema_migrations (name) VALUES ('twice')`);
      const failure = await executeStatement(
        db,
        statement("INSERT INTO schema_migrations (name) VALUES ('twice')"),
        [],
      ).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toMatchObject({ code: '23505', detail: 'Key (name)=(twice) already exists.' });
    }));

  it('commits a transaction that returns and rolls back one that throws, while other statements wait', () =>
    withEmbeddedDatabase(async ({ db }) => {
      const names = async () =>
        (
          (await db.execute(
            sql`SELECT name FROM schema_migrations WHERE name LIKE 'tx-%' ORDER BY name`,
          )) as {
            rows: { name: string }[];
          }
        ).rows.map((row) => row.name);
      let outsideSaw: string[] | undefined;
      let outside: Promise<void> | undefined;
      await db.transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES ('tx-kept')`);
        outside = names().then((seen) => {
          outsideSaw = seen;
        });
        await tx.execute(sql`SELECT 1`);
        expect(outsideSaw).toBeUndefined();
      });
      await outside;
      await expect(
        db.transaction(async (tx) => {
          await tx.execute(sql`INSERT INTO schema_migrations (name) VALUES ('tx-undone')`);
          throw new Error('changed my mind');
        }),
      ).rejects.toThrow('changed my mind');
      expect(outsideSaw).toEqual(['tx-kept']);
      expect(await names()).toEqual(['tx-kept']);
    }));

  it('is vacuumed and analysed where autovacuum would have done it, as PGlite has no autovacuum', () =>
    withEmbeddedDatabase(async ({ db }) => {
      const deadRows = async () => {
        // Activity counts reach the statistics views at most once a second unless forced.
        await db.execute(sql`SELECT pg_stat_force_next_flush()`);
        const result = (await db.execute(
          sql`SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'mail_outbox'`,
        )) as { rows: { n_dead_tup: number }[] };
        return Number(result.rows[0]?.n_dead_tup);
      };
      await db.execute(sql`INSERT INTO mail_outbox (to_address, subject, text_body)
        SELECT 'someone-' || n || '@example.com', 'Subject', 'Text' FROM generate_series(1, 400) AS n`);
      // Each mail marked sent leaves its earlier version behind, as delivery does.
      await db.execute(sql`UPDATE mail_outbox SET sent_at = now()`);
      expect(await deadRows()).toBe(400);

      expect(await vacuumWhereDue(db)).toContain('mail_outbox');
      expect(await deadRows()).toBe(0);
      const analysed = (await db.execute(
        sql`SELECT last_analyze FROM pg_stat_user_tables WHERE relname = 'mail_outbox'`,
      )) as { rows: { last_analyze: Date | null }[] };
      expect(analysed.rows[0]?.last_analyze).not.toBeNull();
      // Nothing is due right after: a quiet database costs one catalogue read a minute.
      expect(await vacuumWhereDue(db)).toEqual([]);

      // An append-only table has no dead rows, yet its new rows need freezing, as autovacuum does.
      await db.execute(sql`INSERT INTO audit_log (at, event, outcome)
        SELECT now(), 'test.vacuum', 'success' FROM generate_series(1, 2000)`);
      await db.execute(sql`SELECT pg_stat_force_next_flush()`);
      expect(await vacuumWhereDue(db)).toEqual(['audit_log']);
      const vacuumed = (await db.execute(
        sql`SELECT last_vacuum FROM pg_stat_user_tables WHERE relname = 'audit_log'`,
      )) as { rows: { last_vacuum: Date | null }[] };
      expect(vacuumed.rows[0]?.last_vacuum).not.toBeNull();
    }));

  it('analyses the audit log on a small sample, of only the columns its queries filter on', () =>
    withEmbeddedDatabase(async ({ db }) => {
      await db.execute(sql`INSERT INTO audit_log (at, event, outcome, actor, tenant_id, ip, detail)
        SELECT now() - n * interval '1 second', 'test.event-' || (n % 50), 'success', 'consumer:' || n,
          n % 7, '10.0.' || (n % 250) || '.1', jsonb_build_object('n', n)
        FROM generate_series(1, 4000) AS n`);
      await db.execute(sql`SELECT pg_stat_force_next_flush()`);
      expect(await vacuumWhereDue(db)).toContain('audit_log');
      const stats = (await db.execute(
        sql`SELECT attname, cardinality(histogram_bounds::text::text[]) AS bounds
          FROM pg_stats WHERE tablename = 'audit_log' ORDER BY attname`,
      )) as { rows: { attname: string; bounds: number | null }[] };
      // Statistics target 10: at most 11 histogram bounds, where the default target keeps 101.
      expect(stats.rows.map((row) => row.attname)).toEqual(['at', 'id', 'tenant_id']);
      const at = stats.rows.find((row) => row.attname === 'at');
      expect(at?.bounds).toBeGreaterThan(1);
      expect(at?.bounds).toBeLessThanOrEqual(11);
    }));

  it('analyses consumers and their links on small samples, of only the columns their queries use', () =>
    withEmbeddedDatabase(async ({ db }) => {
      await db.execute(sql`INSERT INTO tenants (id, subdomain, name) VALUES (7, 'sampled', 'Sampled')`);
      await db.execute(sql`INSERT INTO consumers (tenant_id, consumer_id, name, email, last4_ssn_hash)
        SELECT 7, 'c-' || n, 'Name ' || n, 'c' || n || '@example.com', 'hash-' || (n % 900)
        FROM generate_series(1, 4000) AS n`);
      await db.execute(sql`INSERT INTO identity_tokens (guid, consumer_id, tenant_id, source, sign_in_type, expires_at, last_used_at)
        SELECT gen_random_uuid(), id, 7, 'import', 'Direct', now() + interval '30 days', now() FROM consumers`);
      await db.execute(sql`SELECT pg_stat_force_next_flush()`);
      expect(await vacuumWhereDue(db)).toEqual(expect.arrayContaining(['consumers', 'identity_tokens']));
      const stats = (await db.execute(
        sql`SELECT tablename, attname, cardinality(histogram_bounds::text::text[]) AS bounds
          FROM pg_stats WHERE tablename IN ('consumers', 'identity_tokens') ORDER BY tablename, attname`,
      )) as { rows: { tablename: string; attname: string; bounds: number | null }[] };
      // Columns whose values are all null or all alike leave a row without histogram bounds.
      expect(stats.rows.map((row) => `${row.tablename}.${row.attname}`)).toEqual([
        'consumers.consumer_id',
        'consumers.date_of_birth_hash',
        'consumers.id',
        'consumers.last4_ssn_hash',
        'consumers.postal_code_hash',
        'consumers.tenant_id',
        'identity_tokens.consumer_id',
        'identity_tokens.guid',
        'identity_tokens.mailing_id',
        'identity_tokens.short_id',
        'identity_tokens.tenant_id',
      ]);
      for (const row of stats.rows) expect(row.bounds ?? 0).toBeLessThanOrEqual(11);
    }));
});
