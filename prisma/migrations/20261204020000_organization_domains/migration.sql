-- Domains an organization proves it holds with a DNS TXT record. One organization per verified
-- domain, and one live claim per organization and domain: both as partial unique indexes, so a
-- race of two verifications settles in the database.
CREATE TABLE "organization_domains" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "domain" VARCHAR(253) NOT NULL,
    "status" VARCHAR(10) NOT NULL DEFAULT 'pending',
    "token" VARCHAR(64) NOT NULL,
    "verified_at" TIMESTAMPTZ(6),
    "last_checked_at" TIMESTAMPTZ(6),
    "missing_since" TIMESTAMPTZ(6),
    "last_error" VARCHAR(512),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),
    "updated_by" VARCHAR(255),
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "organization_domains_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "organization_domains_status_check" CHECK ("status" IN ('pending', 'verified', 'failed'))
);

CREATE INDEX "organization_domains_org_id_idx" ON "organization_domains"("org_id");
CREATE INDEX "organization_domains_status_last_checked_at_idx" ON "organization_domains"("status", "last_checked_at");
CREATE UNIQUE INDEX "organization_domains_verified_domain_key" ON "organization_domains"("domain")
    WHERE "status" = 'verified' AND NOT "is_deleted";
CREATE UNIQUE INDEX "organization_domains_org_id_domain_key" ON "organization_domains"("org_id", "domain")
    WHERE NOT "is_deleted";

ALTER TABLE "organization_domains" ADD CONSTRAINT "organization_domains_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TRIGGER "organization_domains_touch_updated_at" BEFORE UPDATE ON "organization_domains" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();
