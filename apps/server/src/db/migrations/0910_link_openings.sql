-- A link opened with `addAction=true` is audited at most once per link, client address and hour
-- (issue 27): anyone holding a link could otherwise write audit rows without end. A row here marks
-- that hour's opening as recorded; the insert that adds it decides, on every instance at once,
-- whether the audit row is written. Rows of past hours serve nothing and are pruned.
CREATE TABLE link_openings (
  hour timestamptz NOT NULL,
  identity_token_guid uuid NOT NULL,
  ip text NOT NULL,
  PRIMARY KEY (hour, identity_token_guid, ip)
);
