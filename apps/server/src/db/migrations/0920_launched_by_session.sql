-- A launched customer session lives only while the admin session that launched it does, and a
-- launch token only while the admin session that made it does (decision record 020): both name
-- that session. Ending an admin session finds the sessions it launched through the partial index,
-- which sessions of any other kind never enter.
ALTER TABLE sessions ADD COLUMN launched_by_session_id uuid;
ALTER TABLE launch_tokens ADD COLUMN admin_session_id uuid;
CREATE INDEX sessions_launched_by_session_idx ON sessions (launched_by_session_id)
  WHERE launched_by_session_id IS NOT NULL;
