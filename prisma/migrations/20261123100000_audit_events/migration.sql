-- The audit trail: one row per change, sign-in or refused authorization. No foreign keys: an event
-- outlives the user, key or organization it names; old events go by audit.retention_days.
CREATE TABLE "audit_events" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "occurred_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "actor_user_id" UUID,
    "actor_auth" VARCHAR(10) NOT NULL,
    "actor_key_prefix" VARCHAR(16),
    "action" VARCHAR(100) NOT NULL,
    "target_type" VARCHAR(50),
    "target_id" VARCHAR(255),
    "org_id" UUID,
    "request_id" VARCHAR(128),
    "ip" VARCHAR(64),
    "user_agent" VARCHAR(255),
    "changes" JSONB,
    "outcome" VARCHAR(10) NOT NULL,

    CONSTRAINT "audit_events_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "audit_events_actor_auth_check" CHECK ("actor_auth" IN ('session', 'api_key', 'cli', 'system')),
    CONSTRAINT "audit_events_outcome_check" CHECK ("outcome" IN ('success', 'denied'))
);

CREATE INDEX "audit_events_occurred_at_id_idx" ON "audit_events"("occurred_at" DESC, "id" DESC);
CREATE INDEX "audit_events_org_id_occurred_at_idx" ON "audit_events"("org_id", "occurred_at" DESC);
CREATE INDEX "audit_events_actor_user_id_occurred_at_idx" ON "audit_events"("actor_user_id", "occurred_at" DESC);
CREATE INDEX "audit_events_target_id_occurred_at_idx" ON "audit_events"("target_id", "occurred_at" DESC);
