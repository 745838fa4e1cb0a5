-- A mail whose content stops working (a one-time code, a password-reset link) carries when it
-- does. The delivery drops such a mail unsent from then on, with an audit row, instead of sending
-- a code that no longer works; other mail has none and waits as long as it takes (issue 33).
ALTER TABLE mail_outbox ADD COLUMN expires_at timestamptz;
