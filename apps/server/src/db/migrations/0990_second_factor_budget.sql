-- Second-factor tries (authenticator codes, recovery codes, passkey answers) have a lock budget of
-- their own, apart from the password's: a right password never resets it, so whoever holds the
-- password cannot guess codes without end. Only a completed second step or the lock's end does.
ALTER TABLE staff_users ADD COLUMN second_factor_failed_count integer NOT NULL DEFAULT 0;
ALTER TABLE staff_users ADD COLUMN second_factor_locked_until timestamptz;
ALTER TABLE staff_users ADD COLUMN second_factor_lock_level integer NOT NULL DEFAULT 0;
ALTER TABLE staff_users ADD COLUMN second_factor_last_failure_at timestamptz;
