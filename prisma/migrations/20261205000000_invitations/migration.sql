-- Invitations to join an organization: the token's SHA-256 only, the roles it grants, its state
-- (pending, accepted, revoked, expired) and what became of its email.
CREATE TABLE "invitations" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "email" VARCHAR(255) NOT NULL,
    "role_ids" UUID[] NOT NULL,
    "token_hash" VARCHAR(64) NOT NULL,
    "status" VARCHAR(10) NOT NULL DEFAULT 'pending',
    "delivery" VARCHAR(16) NOT NULL DEFAULT 'not_configured',
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "invited_by" UUID,
    "accepted_at" TIMESTAMPTZ(6),
    "accepted_by" UUID,
    "revoked_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),
    "updated_by" VARCHAR(255),

    CONSTRAINT "invitations_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "invitations_token_hash_key" ON "invitations"("token_hash");
CREATE INDEX "invitations_org_id_created_at_idx" ON "invitations"("org_id", "created_at");
CREATE INDEX "invitations_status_expires_at_idx" ON "invitations"("status", "expires_at");

ALTER TABLE "invitations" ADD CONSTRAINT "invitations_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- One pending invitation per organization and address, whatever its case.
CREATE UNIQUE INDEX "invitations_pending_email_key" ON "invitations"("org_id", lower("email")) WHERE "status" = 'pending';
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_status_check" CHECK ("status" IN ('pending', 'accepted', 'revoked', 'expired'));
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_delivery_check" CHECK ("delivery" IN ('queued', 'sent', 'failed', 'not_configured'));
CREATE TRIGGER "invitations_touch_updated_at" BEFORE UPDATE ON "invitations" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();
