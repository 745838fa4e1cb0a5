-- The server keeps the staff idle limit (decision record 032): a staff session records when it was
-- last used, and has ended once that is older than the limit. Consumer sessions keep it NULL and
-- have no such limit.
ALTER TABLE sessions ADD COLUMN last_used_at timestamptz;
