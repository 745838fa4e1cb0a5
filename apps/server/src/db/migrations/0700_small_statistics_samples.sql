-- PGlite analyses its tables on the thread that answers every request (embedded-vacuum.ts), so an
-- ANALYZE of a table that every sign-in grows held all requests back while it sampled. Measured on
-- the PGlite benchmark's database (decision record 012): audit_log (463,000 rows) 218-257 ms,
-- mail_outbox (22,000, with their bodies) 173-192 ms, sessions (84,000) 107-179 ms, refresh_tokens
-- (142,000) 97-99 ms. Their queries find rows by key, by session or by time, through indexes: a
-- sample of 3,000 rows (statistics target 10) plans them as one of 30,000 does, and the columns no
-- query filters on are not sampled at all.
ALTER TABLE audit_log
  ALTER COLUMN id SET STATISTICS 10,
  ALTER COLUMN at SET STATISTICS 10,
  ALTER COLUMN tenant_id SET STATISTICS 10,
  ALTER COLUMN event SET STATISTICS 0,
  ALTER COLUMN actor SET STATISTICS 0,
  ALTER COLUMN ip SET STATISTICS 0,
  ALTER COLUMN outcome SET STATISTICS 0,
  ALTER COLUMN detail SET STATISTICS 0;

ALTER TABLE mail_outbox
  ALTER COLUMN id SET STATISTICS 10,
  ALTER COLUMN sent_at SET STATISTICS 10,
  ALTER COLUMN next_attempt_at SET STATISTICS 10,
  ALTER COLUMN tenant_id SET STATISTICS 0,
  ALTER COLUMN to_address SET STATISTICS 0,
  ALTER COLUMN subject SET STATISTICS 0,
  ALTER COLUMN text_body SET STATISTICS 0,
  ALTER COLUMN html_body SET STATISTICS 0,
  ALTER COLUMN headers SET STATISTICS 0,
  ALTER COLUMN created_at SET STATISTICS 0,
  ALTER COLUMN attempts SET STATISTICS 0,
  ALTER COLUMN last_error SET STATISTICS 0;

ALTER TABLE sessions
  ALTER COLUMN id SET STATISTICS 10,
  ALTER COLUMN staff_user_id SET STATISTICS 10,
  ALTER COLUMN created_at SET STATISTICS 10,
  ALTER COLUMN revoked_at SET STATISTICS 10,
  ALTER COLUMN scope SET STATISTICS 0,
  ALTER COLUMN tenant_id SET STATISTICS 0,
  ALTER COLUMN consumer_id SET STATISTICS 0,
  ALTER COLUMN identity_token_guid SET STATISTICS 0,
  ALTER COLUMN access_type SET STATISTICS 0,
  ALTER COLUMN has_restricted_access SET STATISTICS 0,
  ALTER COLUMN role_id SET STATISTICS 0,
  ALTER COLUMN launched_by_admin_id SET STATISTICS 0,
  ALTER COLUMN revoked_reason SET STATISTICS 0;

ALTER TABLE refresh_tokens
  ALTER COLUMN hash SET STATISTICS 10,
  ALTER COLUMN session_id SET STATISTICS 10,
  ALTER COLUMN expires_at SET STATISTICS 10,
  ALTER COLUMN created_at SET STATISTICS 0,
  ALTER COLUMN rotated_at SET STATISTICS 0,
  ALTER COLUMN replaced_by SET STATISTICS 0;
