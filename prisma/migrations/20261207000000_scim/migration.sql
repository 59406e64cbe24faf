-- Directory provisioning (SCIM 2.0): each organization's tokens, the people and groups its
-- directory provisioned, the latest requests, and the suspension a directory puts on a membership.
ALTER TABLE "user_org_memberships" ADD COLUMN "suspended_at" TIMESTAMPTZ(6);

-- A directory's changes are recorded with actor_auth scim and the token's prefix.
ALTER TABLE "audit_events" DROP CONSTRAINT "audit_events_actor_auth_check";
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_actor_auth_check" CHECK ("actor_auth" IN ('session', 'api_key', 'cli', 'system', 'scim'));

CREATE TABLE "scim_tokens" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "name" VARCHAR(100) NOT NULL,
    "prefix" VARCHAR(16) NOT NULL,
    "token_hash" VARCHAR(64) NOT NULL,
    "last_used_at" TIMESTAMPTZ(6),
    "revoked_at" TIMESTAMPTZ(6),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),
    "updated_by" VARCHAR(255),

    CONSTRAINT "scim_tokens_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "scim_tokens_token_hash_key" ON "scim_tokens"("token_hash");
CREATE INDEX "scim_tokens_org_id_idx" ON "scim_tokens"("org_id");
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE TRIGGER "scim_tokens_touch_updated_at" BEFORE UPDATE ON "scim_tokens" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();

CREATE TABLE "scim_users" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "user_name" VARCHAR(255) NOT NULL,
    "external_id" VARCHAR(255),
    "given_name" VARCHAR(255),
    "family_name" VARCHAR(255),
    "display_name" VARCHAR(255),
    "email" VARCHAR(255),
    "active" BOOLEAN NOT NULL DEFAULT true,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_users_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "scim_users_org_id_user_id_key" ON "scim_users"("org_id", "user_id");
CREATE INDEX "scim_users_org_id_id_idx" ON "scim_users"("org_id", "id");
CREATE UNIQUE INDEX "scim_users_user_name_unique" ON "scim_users"("org_id", lower("user_name"));
CREATE UNIQUE INDEX "scim_users_external_id_unique" ON "scim_users"("org_id", "external_id") WHERE "external_id" IS NOT NULL;
ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE TRIGGER "scim_users_touch_updated_at" BEFORE UPDATE ON "scim_users" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();

CREATE TABLE "scim_groups" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "display_name" VARCHAR(255) NOT NULL,
    "external_id" VARCHAR(255),
    "role_ids" UUID[] NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_groups_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "scim_groups_org_id_id_idx" ON "scim_groups"("org_id", "id");
CREATE UNIQUE INDEX "scim_groups_display_name_unique" ON "scim_groups"("org_id", lower("display_name"));
ALTER TABLE "scim_groups" ADD CONSTRAINT "scim_groups_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE TRIGGER "scim_groups_touch_updated_at" BEFORE UPDATE ON "scim_groups" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();

CREATE TABLE "scim_group_members" (
    "group_id" UUID NOT NULL,
    "scim_user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_group_members_pkey" PRIMARY KEY ("group_id", "scim_user_id")
);
CREATE INDEX "scim_group_members_scim_user_id_idx" ON "scim_group_members"("scim_user_id");
ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_group_id_fkey" FOREIGN KEY ("group_id") REFERENCES "scim_groups"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "scim_group_members" ADD CONSTRAINT "scim_group_members_scim_user_id_fkey" FOREIGN KEY ("scim_user_id") REFERENCES "scim_users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "scim_requests" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "token_prefix" VARCHAR(16) NOT NULL,
    "method" VARCHAR(10) NOT NULL,
    "path" VARCHAR(2048) NOT NULL,
    "status" INTEGER NOT NULL,
    "scim_type" VARCHAR(30),
    "detail" VARCHAR(500),
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "scim_requests_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "scim_requests_org_id_created_at_idx" ON "scim_requests"("org_id", "created_at" DESC);
