-- Events out (webhooks): endpoints, the messages written with each change they announce, one
-- delivery per message and endpoint, and the marks that keep a system event to once.
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID,
    "url" VARCHAR(2048) NOT NULL,
    "description" VARCHAR(1000),
    "event_types" VARCHAR(100)[] NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "secret_encrypted" TEXT NOT NULL,
    "previous_secret_encrypted" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(6),
    "disabled_reason" VARCHAR(512),
    "failing_since" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),
    "updated_by" VARCHAR(255),
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "webhook_messages" (
    "id" UUID NOT NULL,
    "event_type" VARCHAR(100) NOT NULL,
    "org_id" UUID,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_messages_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "message_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "status" VARCHAR(10) NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" VARCHAR(512),
    "last_response" VARCHAR(1024),
    "next_attempt_at" TIMESTAMPTZ(6),
    "leased_until" TIMESTAMPTZ(6),
    "delivered_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'delivered', 'failed'))
);

CREATE TABLE "event_marks" (
    "key" VARCHAR(255) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "event_marks_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "webhook_endpoints_org_id_idx" ON "webhook_endpoints"("org_id");
CREATE INDEX "webhook_messages_created_at_idx" ON "webhook_messages"("created_at");
CREATE UNIQUE INDEX "webhook_deliveries_message_id_endpoint_id_key" ON "webhook_deliveries"("message_id", "endpoint_id");
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("endpoint_id", "created_at" DESC, "id" DESC);
CREATE INDEX "webhook_deliveries_created_at_idx" ON "webhook_deliveries"("created_at");

ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "webhook_messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TRIGGER "webhook_endpoints_touch_updated_at" BEFORE UPDATE ON "webhook_endpoints" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();
CREATE TRIGGER "webhook_deliveries_touch_updated_at" BEFORE UPDATE ON "webhook_deliveries" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();
