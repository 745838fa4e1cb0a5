-- An invited account, until its user chooses the first password. Accounts made before this column
-- were invited while their password had not changed since they were made.
ALTER TABLE staff_users ADD COLUMN invitation_pending boolean NOT NULL DEFAULT false;
UPDATE staff_users SET invitation_pending = true WHERE password_changed_at = created_at;
