-- A customer manager: a customer user who looks after the staff of their own organization in the
-- console (invite, disable, unlock, reset second factors). Admins are never managers.
ALTER TABLE staff_users ADD COLUMN manager boolean NOT NULL DEFAULT false;
ALTER TABLE staff_users ADD CONSTRAINT staff_users_manager_customer CHECK (NOT manager OR kind = 'customer');
