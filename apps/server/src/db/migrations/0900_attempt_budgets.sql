-- Attempt budgets that belong to no single row of their own (docs/decisions/019): the failures of
-- a token-less verification, keyed by tenant and the keyed hashes of ZIP code and date of birth,
-- and the wrong MFA codes across a consumer's pending sessions. An attempt takes a unit before it
-- is judged, in one conditional upsert, and a lock follows the link's policy.
CREATE TABLE attempt_budgets (
  kind text NOT NULL,
  key text NOT NULL,
  taken integer NOT NULL DEFAULT 0,
  lock_level integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  last_failure_at timestamptz,
  PRIMARY KEY (kind, key)
);

-- When each of a consumer's one-time codes of the last hour was mailed: at most five an hour.
CREATE TABLE code_mail_budgets (
  consumer_id bigint PRIMARY KEY,
  sent_at timestamptz[] NOT NULL
);

-- A new lookup ends the consumer's earlier pending sessions.
CREATE INDEX sessions_pending_consumer_idx ON sessions (consumer_id)
  WHERE access_type = 'MfaPending' AND revoked_at IS NULL;
