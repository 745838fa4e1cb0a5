-- Less for every sign-in to write (decision record 011).
--
-- Refresh tokens and MFA codes name their session without a foreign key. Each is written only by a
-- statement that has just written or read its live session, and the retention job deletes them
-- with their ended session (retention.ts). The key's check ran one more query in every sign-in and
-- refresh, through a plan PostgreSQL caches: made while `sessions` was a few pages long, that plan
-- scans the whole table, and kept scanning it as the table grew until the next ANALYZE, 10 ms a
-- sign-in at 100,000 sessions.
ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_session_id_fkey;
ALTER TABLE mfa_codes DROP CONSTRAINT mfa_codes_session_id_fkey;

-- No query reads the audit log by event: the export reads a time range, of all tenants or of one
-- (audit_log_at_idx, audit_log_tenant_at_idx). The index was one more B-tree for every sign-in and
-- every opened link to insert into.
DROP INDEX audit_log_event_idx;
