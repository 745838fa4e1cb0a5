-- A session, and a mail the server queues, are written only by statements that have just read the
-- tenant, user, consumer and identity token they name, and none of those rows is ever deleted.
-- The foreign keys' checks share-locked each named row in every sign-in: every sign-in of one
-- tenant locked the same tenants row, which PostgreSQL records as a multixact as soon as two
-- transactions hold it, and each check was one more query on the write path (decision record
-- 010). refresh_tokens and mfa_codes keep their keys to sessions: deleting an ended session
-- deletes them with it.
ALTER TABLE sessions
  DROP CONSTRAINT sessions_tenant_id_fkey,
  DROP CONSTRAINT sessions_staff_user_id_fkey,
  DROP CONSTRAINT sessions_consumer_id_fkey,
  DROP CONSTRAINT sessions_identity_token_guid_fkey,
  DROP CONSTRAINT sessions_launched_by_admin_id_fkey;
ALTER TABLE mail_outbox DROP CONSTRAINT mail_outbox_tenant_id_fkey;
