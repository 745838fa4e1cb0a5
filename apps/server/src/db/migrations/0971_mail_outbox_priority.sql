-- Consumers' one-time codes leave the outbox ahead of every other mail: a flood of other mail
-- (reset links, notices) must not hold a code back until it expires. The claim takes unsent due
-- mails by priority, then oldest first; a retry keeps the row, and so its priority. The lease
-- still changes only next_attempt_at, which no index holds, so it stays a HOT update.
ALTER TABLE mail_outbox ADD COLUMN priority integer NOT NULL DEFAULT 0;
CREATE INDEX mail_outbox_unsent_by_priority_idx ON mail_outbox (priority DESC, id) WHERE sent_at IS NULL;
DROP INDEX mail_outbox_unsent_idx;
