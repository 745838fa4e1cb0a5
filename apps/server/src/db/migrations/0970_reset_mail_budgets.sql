-- When each of a staff user's reset mails of the last hour was made: at most three an hour. A
-- request takes its place here, in one conditional upsert, before its link and mail are made.
CREATE TABLE reset_mail_budgets (
  staff_user_id bigint PRIMARY KEY REFERENCES staff_users (id) ON DELETE CASCADE,
  sent_at timestamptz[] NOT NULL
);
