-- Second factors of admins and customer users: an authenticator app (TOTP), passkeys (WebAuthn)
-- and single-use recovery codes. A session records when a second factor was last used in it, so
-- a launch can ask for one used within the last minutes (step-up).
ALTER TABLE sessions ADD COLUMN second_factor_at timestamptz;

-- One authenticator app per user. Its secret is sealed (AES-256-GCM) with a key from configuration;
-- it is unconfirmed until the first code from the app is accepted, and a code's time step is
-- accepted once.
CREATE TABLE staff_totp (
  staff_user_id bigint PRIMARY KEY REFERENCES staff_users (id) ON DELETE CASCADE,
  secret_sealed text NOT NULL,
  confirmed_at timestamptz,
  last_used_step bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- Ten codes shown once, kept only as keyed hashes; each works once.
CREATE TABLE staff_recovery_codes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  staff_user_id bigint NOT NULL REFERENCES staff_users (id) ON DELETE CASCADE,
  code_hash text NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX staff_recovery_codes_user ON staff_recovery_codes (staff_user_id);

-- A user's passkeys, by their credential id (base64url); the public key is a COSE key in base64url.
CREATE TABLE staff_passkeys (
  credential_id text PRIMARY KEY,
  staff_user_id bigint NOT NULL REFERENCES staff_users (id) ON DELETE CASCADE,
  name text NOT NULL,
  public_key text NOT NULL,
  counter bigint NOT NULL DEFAULT 0,
  transports jsonb NOT NULL DEFAULT '[]',
  device_type text NOT NULL,
  backed_up boolean NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz
);
CREATE INDEX staff_passkeys_user ON staff_passkeys (staff_user_id);

-- A WebAuthn challenge is used once and within five minutes; a registration's and a second step's
-- challenge belong to the session that asked, a usernameless sign-in's to no session.
CREATE TABLE webauthn_challenges (
  id uuid PRIMARY KEY,
  challenge text NOT NULL,
  purpose text NOT NULL,
  kind text NOT NULL,
  session_id uuid,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
