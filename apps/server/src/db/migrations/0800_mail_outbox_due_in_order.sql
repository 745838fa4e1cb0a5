-- The delivery claims the oldest due mails first (`claimDue` in services/mail.ts: sent_at IS NULL,
-- next_attempt_at due, ORDER BY id, LIMIT 20). The index on next_attempt_at could not give that
-- order, so every claim read all its entries and sorted them; and since every claim and every
-- "sent" mark added entries to it while a bitmap scan never removes dead ones, it held an entry
-- for every mail queued since the last vacuum. On a mailing day's lookup sign-ins (about 900 codes
-- a second on PostgreSQL, decision record 018) a claim took 3 ms on average and 20 ms at worst
-- after 20 s, 42 ms once 21,000 mails had gone, and grew with the day.
--
-- Unsent mails in id order instead: a claim reads them from the oldest and stops at 20 due ones,
-- and its index scan marks the entries of rows gone since as dead as it passes. next_attempt_at is
-- no longer indexed, so the claim's lease (which changes only next_attempt_at) can be a HOT update
-- that adds no index entry at all.
CREATE INDEX mail_outbox_unsent_idx ON mail_outbox (id) WHERE sent_at IS NULL;
DROP INDEX mail_outbox_pending_idx;
