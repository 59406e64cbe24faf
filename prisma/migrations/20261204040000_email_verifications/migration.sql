-- The link a user asked for to show their email is theirs: one per user (a new request replaces the
-- row, so the old link dies), the address it was sent to (a link for an address the user no longer
-- has is useless), and the token as SHA-256 only: the link itself goes only by email.
CREATE TABLE "email_verifications" (
    "user_id" UUID NOT NULL,
    "email" VARCHAR(255) NOT NULL,
    "token_hash" CHAR(64) NOT NULL,
    "delivery" VARCHAR(20) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "email_verifications_pkey" PRIMARY KEY ("user_id"),
    CONSTRAINT "email_verifications_delivery_check" CHECK ("delivery" IN ('queued', 'sent', 'failed'))
);

CREATE UNIQUE INDEX "email_verifications_token_hash_key" ON "email_verifications"("token_hash");

ALTER TABLE "email_verifications" ADD CONSTRAINT "email_verifications_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TRIGGER "email_verifications_touch_updated_at" BEFORE UPDATE ON "email_verifications" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();
