-- The whole store of the auth API. Times are written by the server from its clock, so tests can
-- move time; the defaults only cover hand-made rows.

CREATE TABLE tenants (
  id integer PRIMARY KEY,
  subdomain text NOT NULL UNIQUE,
  name text NOT NULL,
  settings jsonb NOT NULL DEFAULT '{"mfaRequired": true, "maxPasswordAgeDays": null}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE staff_users (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('admin', 'customer')),
  tenant_id integer REFERENCES tenants (id),
  username text NOT NULL,
  email text NOT NULL,
  display_name text NOT NULL,
  role_id integer NOT NULL,
  password_hash text NOT NULL,
  password_changed_at timestamptz NOT NULL,
  failed_count integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  lock_level integer NOT NULL DEFAULT 0,
  last_failure_at timestamptz,
  disabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT staff_users_tenant_by_kind CHECK ((kind = 'admin') = (tenant_id IS NULL)),
  CONSTRAINT staff_users_username_unique UNIQUE (kind, username)
);

CREATE TABLE consumers (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id integer NOT NULL REFERENCES tenants (id),
  consumer_id text NOT NULL,
  name text NOT NULL,
  email text,
  last4_ssn_hash text,
  postal_code_hash text,
  date_of_birth_hash text,
  failed_count integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  lock_level integer NOT NULL DEFAULT 0,
  last_failure_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT consumers_external_id_unique UNIQUE (tenant_id, consumer_id)
);
CREATE INDEX consumers_verification_idx ON consumers (tenant_id, last4_ssn_hash, postal_code_hash, date_of_birth_hash);

CREATE TABLE identity_tokens (
  guid uuid PRIMARY KEY,
  short_id text UNIQUE,
  consumer_id bigint NOT NULL REFERENCES consumers (id),
  tenant_id integer NOT NULL REFERENCES tenants (id),
  source text NOT NULL,
  sign_in_type text NOT NULL CHECK (sign_in_type IN ('None', 'Direct', 'Last4Ssn', 'PostalCode', 'DateOfBirth')),
  data jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  last_used_at timestamptz,
  revoked_at timestamptz,
  mailing_id text,
  failed_count integer NOT NULL DEFAULT 0,
  locked_until timestamptz,
  lock_level integer NOT NULL DEFAULT 0,
  last_failure_at timestamptz,
  CONSTRAINT identity_tokens_no_short_id_for_direct CHECK (sign_in_type <> 'Direct' OR short_id IS NULL)
);
CREATE INDEX identity_tokens_consumer_idx ON identity_tokens (consumer_id);

CREATE TABLE sessions (
  id uuid PRIMARY KEY,
  scope text NOT NULL CHECK (scope IN ('admin', 'customer', 'consumer')),
  tenant_id integer REFERENCES tenants (id),
  staff_user_id bigint REFERENCES staff_users (id),
  consumer_id bigint REFERENCES consumers (id),
  identity_token_guid uuid REFERENCES identity_tokens (guid),
  access_type text NOT NULL,
  has_restricted_access boolean NOT NULL,
  role_id integer,
  launched_by_admin_id bigint REFERENCES staff_users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  revoked_reason text
);

CREATE TABLE refresh_tokens (
  hash text PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  replaced_by text
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

CREATE TABLE signing_keys (
  kid text PRIMARY KEY,
  algorithm text NOT NULL DEFAULT 'EdDSA',
  public_jwk jsonb NOT NULL,
  private_pkcs8 text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);

CREATE TABLE launch_tokens (
  hash text PRIMARY KEY,
  admin_id bigint NOT NULL REFERENCES staff_users (id),
  tenant_id integer NOT NULL REFERENCES tenants (id),
  kind text NOT NULL CHECK (kind IN ('customer', 'dashbilling')),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE mfa_codes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  expires_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mfa_codes_session_idx ON mfa_codes (session_id);

CREATE TABLE password_reset_tokens (
  hash text PRIMARY KEY,
  user_id bigint NOT NULL REFERENCES staff_users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE email_subscriptions (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id integer NOT NULL REFERENCES tenants (id),
  email_address text NOT NULL,
  unsubscribed boolean NOT NULL DEFAULT false,
  changed_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT email_subscriptions_address_unique UNIQUE (tenant_id, email_address)
);

CREATE TABLE mail_outbox (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id integer REFERENCES tenants (id),
  to_address text NOT NULL,
  subject text NOT NULL,
  text_body text NOT NULL,
  html_body text,
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  next_attempt_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX mail_outbox_pending_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;

CREATE TABLE audit_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  event text NOT NULL,
  actor text,
  tenant_id integer,
  ip text,
  outcome text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX audit_log_event_idx ON audit_log (event, at);

-- The audit log is append-only: rows are never changed or removed.
CREATE FUNCTION audit_log_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_is_append_only();
