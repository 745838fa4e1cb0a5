-- What consumers see of their organization on its pages: its contact details (phone, e-mail,
-- hours, web address; each null until the operator sets it) and its logo. The logo has a table of
-- its own, so the many reads of a tenant row never carry its bytes; it is kept as base64 text, one
-- representation on PostgreSQL and PGlite alike, with the digest its address is made of.
ALTER TABLE tenants ADD COLUMN contact jsonb;
CREATE TABLE tenant_logos (
  tenant_id integer PRIMARY KEY REFERENCES tenants (id),
  media_type text NOT NULL,
  content_base64 text NOT NULL,
  digest text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
