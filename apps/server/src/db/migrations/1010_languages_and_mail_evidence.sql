-- A consumer's language, from the import file or the language of the page a completed sign-in
-- came from; null until one is known, and the organization's default applies.
ALTER TABLE consumers ADD COLUMN language text CHECK (language IN ('en', 'es'));

-- The language of the page a pending sign-in came from, kept with its code so the sign-in that
-- completes it can save it on the consumer.
ALTER TABLE mfa_codes ADD COLUMN language text CHECK (language IN ('en', 'es'));

-- What a queued mail is and carries, for the audit row its sending leaves (12 CFR 1006.100):
-- kind, language, opt-out link, debt-collector line. Null for mail queued before this column.
ALTER TABLE mail_outbox ADD COLUMN evidence jsonb;
