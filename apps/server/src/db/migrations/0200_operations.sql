-- Operator commands: revoking a mailing finds its tokens by name, and the audit export reads a
-- time range (optionally of one tenant) in time order.

CREATE INDEX identity_tokens_mailing_idx ON identity_tokens (mailing_id) WHERE mailing_id IS NOT NULL;
CREATE INDEX audit_log_at_idx ON audit_log (at, id);
CREATE INDEX audit_log_tenant_at_idx ON audit_log (tenant_id, at, id);
