-- The server deletes ended sessions and sent mail past their retention (services/retention.ts):
-- it finds them by age, oldest first in the index, instead of reading the whole table each time.
CREATE INDEX sessions_created_at_idx ON sessions (created_at);
CREATE INDEX mail_outbox_sent_at_idx ON mail_outbox (sent_at) WHERE sent_at IS NOT NULL;
