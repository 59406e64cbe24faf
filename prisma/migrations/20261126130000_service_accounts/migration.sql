-- Service accounts: users that stand for a machine, not a person. They belong to one organization,
-- have no password or identity and never sign in to the console; their API keys outlive the people
-- who made them.
ALTER TABLE "users" ADD COLUMN "kind" VARCHAR(20) NOT NULL DEFAULT 'human';
ALTER TABLE "users" ADD CONSTRAINT "users_kind_check" CHECK ("kind" IN ('human', 'service'));
ALTER TABLE "users" ADD CONSTRAINT "users_service_no_password_check" CHECK ("kind" = 'human' OR "password_hash" IS NULL);
