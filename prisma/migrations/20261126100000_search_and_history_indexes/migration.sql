-- Lists that stay fast as the tables grow.

-- The audit trail's list, newest first by (occurred_at, id), read from one index per filter: each
-- filter's index holds the events in the list's order, so a page (deep ones too, by their cursor)
-- is a range of it, however many events the table holds. Building them on a large trail blocks
-- writes to it for the time they take (seconds a million events).
DROP INDEX "audit_events_org_id_occurred_at_idx";
DROP INDEX "audit_events_actor_user_id_occurred_at_idx";
DROP INDEX "audit_events_target_id_occurred_at_idx";
CREATE INDEX "audit_events_org_id_occurred_at_id_idx" ON "audit_events"("org_id", "occurred_at" DESC, "id" DESC);
CREATE INDEX "audit_events_actor_user_id_occurred_at_id_idx" ON "audit_events"("actor_user_id", "occurred_at" DESC, "id" DESC);
CREATE INDEX "audit_events_target_id_occurred_at_id_idx" ON "audit_events"("target_id", "occurred_at" DESC, "id" DESC);
CREATE INDEX "audit_events_action_occurred_at_id_idx" ON "audit_events"("action", "occurred_at" DESC, "id" DESC);
-- An organization's trail filtered by action (its activity page's usual filter), likewise.
CREATE INDEX "audit_events_org_id_action_occurred_at_id_idx" ON "audit_events"("org_id", "action", "occurred_at" DESC, "id" DESC);

-- The `q` search of organizations and users (a case-insensitive substring of any of three
-- columns): trigram indexes let it read the rows that can match instead of every row. pg_trgm is a
-- trusted extension (a database owner may create it) shipped by PostgreSQL and by the embedded
-- database alike.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "organizations_name_trgm_idx" ON "organizations" USING gin ("name" gin_trgm_ops);
CREATE INDEX "organizations_display_name_trgm_idx" ON "organizations" USING gin ("display_name" gin_trgm_ops);
CREATE INDEX "organizations_domain_trgm_idx" ON "organizations" USING gin ("domain" gin_trgm_ops);
CREATE INDEX "users_username_trgm_idx" ON "users" USING gin ("username" gin_trgm_ops);
CREATE INDEX "users_display_name_trgm_idx" ON "users" USING gin ("display_name" gin_trgm_ops);
CREATE INDEX "users_email_trgm_idx" ON "users" USING gin ("email" gin_trgm_ops);
