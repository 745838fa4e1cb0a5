-- The console's audit search (issue 43) filters by actor, address or event and reads newest first
-- by (at, id): each of these answers a filtered page from the first matching index entries, at any
-- depth of the cursor, instead of walking the time index past every row of other actors. The
-- tenant filter has audit_log_tenant_at_idx (migration 0200). Outcome is left to ride on these:
-- four values, never selective alone. Decision record 043 weighs the write cost.
CREATE INDEX audit_log_actor_at_idx ON audit_log (actor, at, id) WHERE actor IS NOT NULL;
CREATE INDEX audit_log_ip_at_idx ON audit_log (ip, at, id) WHERE ip IS NOT NULL;
CREATE INDEX audit_log_event_at_idx ON audit_log (event, at, id);
