-- Each organization's own identity providers (OIDC or SAML 2.0), and the ids of SAML messages
-- already used (requests sent, assertions accepted) so that none is accepted twice.
CREATE TABLE "sso_connections" (
    "id" UUID NOT NULL DEFAULT svc_uuid_v7(),
    "org_id" UUID NOT NULL,
    "type" VARCHAR(10) NOT NULL,
    "domains" VARCHAR(253)[] NOT NULL,
    "default_role_id" UUID NOT NULL,
    "enforce" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "oidc_issuer" VARCHAR(2048),
    "oidc_client_id" VARCHAR(255),
    "oidc_client_secret_encrypted" TEXT,
    "oidc_scopes" VARCHAR(100)[] NOT NULL,
    "saml_idp_entity_id" VARCHAR(1024),
    "saml_idp_sso_url" VARCHAR(2048),
    "saml_idp_certificates" TEXT[] NOT NULL,
    "saml_allow_idp_initiated" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_by" VARCHAR(255),
    "updated_by" VARCHAR(255),
    "is_deleted" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "sso_connections_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "sso_connections_type_check" CHECK ("type" IN ('oidc', 'saml'))
);

CREATE INDEX "sso_connections_org_id_idx" ON "sso_connections"("org_id");
ALTER TABLE "sso_connections" ADD CONSTRAINT "sso_connections_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
CREATE TRIGGER "sso_connections_touch_updated_at" BEFORE UPDATE ON "sso_connections" FOR EACH ROW EXECUTE FUNCTION svc_touch_updated_at();

CREATE TABLE "sso_message_ids" (
    "kind" VARCHAR(10) NOT NULL,
    "value" VARCHAR(255) NOT NULL,
    "connection_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(6) NOT NULL,
    "created_at" TIMESTAMPTZ(6) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sso_message_ids_pkey" PRIMARY KEY ("kind", "value"),
    CONSTRAINT "sso_message_ids_kind_check" CHECK ("kind" IN ('request', 'assertion'))
);

CREATE INDEX "sso_message_ids_expires_at_idx" ON "sso_message_ids"("expires_at");
