-- The embedded database's ANALYZE holds every request back while it samples (embedded-vacuum.ts),
-- and every lookup sign-in writes its link's last use, so identity_tokens is analysed about once a
-- minute under a mailing's sign-ins. Measured on the PGlite benchmark's database (80,000 links,
-- 40,000 consumers): identity_tokens 411 ms, consumers 107 ms, as migration 0700 found for the
-- tables it sampled small. Their queries find rows by key, by consumer, by mailing or by the
-- verification index: a sample of 3,000 rows plans them as well, and the other columns are not
-- sampled at all.
ALTER TABLE identity_tokens
  ALTER COLUMN guid SET STATISTICS 10,
  ALTER COLUMN short_id SET STATISTICS 10,
  ALTER COLUMN consumer_id SET STATISTICS 10,
  ALTER COLUMN tenant_id SET STATISTICS 10,
  ALTER COLUMN mailing_id SET STATISTICS 10,
  ALTER COLUMN source SET STATISTICS 0,
  ALTER COLUMN sign_in_type SET STATISTICS 0,
  ALTER COLUMN data SET STATISTICS 0,
  ALTER COLUMN created_at SET STATISTICS 0,
  ALTER COLUMN expires_at SET STATISTICS 0,
  ALTER COLUMN last_used_at SET STATISTICS 0,
  ALTER COLUMN revoked_at SET STATISTICS 0,
  ALTER COLUMN failed_count SET STATISTICS 0,
  ALTER COLUMN locked_until SET STATISTICS 0,
  ALTER COLUMN lock_level SET STATISTICS 0,
  ALTER COLUMN last_failure_at SET STATISTICS 0;

ALTER TABLE consumers
  ALTER COLUMN id SET STATISTICS 10,
  ALTER COLUMN tenant_id SET STATISTICS 10,
  ALTER COLUMN consumer_id SET STATISTICS 10,
  ALTER COLUMN last4_ssn_hash SET STATISTICS 10,
  ALTER COLUMN postal_code_hash SET STATISTICS 10,
  ALTER COLUMN date_of_birth_hash SET STATISTICS 10,
  ALTER COLUMN name SET STATISTICS 0,
  ALTER COLUMN email SET STATISTICS 0,
  ALTER COLUMN failed_count SET STATISTICS 0,
  ALTER COLUMN locked_until SET STATISTICS 0,
  ALTER COLUMN lock_level SET STATISTICS 0,
  ALTER COLUMN last_failure_at SET STATISTICS 0,
  ALTER COLUMN created_at SET STATISTICS 0,
  ALTER COLUMN language SET STATISTICS 0;
