import { z } from "zod";
import { DEFAULT_OIDC_SCOPES, MAX_SSO_DOMAINS, SSO_TYPES } from "@/lib/sso";
import { EXAMPLE_TIMESTAMPS, id, LENGTH, list, listOf, moment, pageQuery, text, timestamps } from "./common";

// Single sign-on connections. One shape for both protocols: the OIDC fields with type "oidc", the
// SAML ones (pasted metadata, or its three values) with "saml"; the server says which are missing.

/** An IdP's metadata may be long (several certificates, many endpoints), never over 256 KiB. */
const MAX_METADATA_CHARS = 262_144;

const scope = text(LENGTH.SHORT)
  .trim()
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, { error: "must be one scope token (no spaces or quotes)" });

const connectionFields = {
  domains: list(text(LENGTH.STANDARD).trim().min(1), MAX_SSO_DOMAINS)
    .min(1)
    .describe("Verified domains of the organization whose people sign in here."),
  default_role_id: id
    .optional()
    .describe("The org role given to people who join at their first sign-in (default org_member)."),
  enforce: z
    .boolean()
    .optional()
    .describe(
      "On: console sessions reach the organization only when signed in through this connection (sys_admins exempt).",
    ),
  enabled: z.boolean().optional(),
  issuer: text(2048).trim().min(1).optional().describe("OIDC: the issuer; its discovery document is read."),
  client_id: text(LENGTH.STANDARD).trim().min(1).optional().describe("OIDC: the client id the IdP gave."),
  client_secret: text(LENGTH.LONG)
    .min(1)
    .optional()
    .describe("OIDC: the client secret; stored encrypted, never returned."),
  scopes: list(scope, 20)
    .optional()
    .describe(`OIDC: the scopes asked for (default ${DEFAULT_OIDC_SCOPES.join(" ")}).`),
  idp_metadata_xml: text(MAX_METADATA_CHARS)
    .min(1)
    .optional()
    .describe("SAML: the IdP's metadata XML as downloaded; or give the three values below."),
  idp_entity_id: text(1024).trim().min(1).optional().describe("SAML: the IdP's entity id (issuer)."),
  idp_sso_url: text(2048).trim().min(1).optional().describe("SAML: the IdP's sign-on URL (HTTP-Redirect)."),
  idp_certificates: list(text(16_384).trim().min(1), 5)
    .min(1)
    .optional()
    .describe("SAML: the IdP's signing certificates, PEM or base64 DER."),
  allow_idp_initiated: z.boolean().optional().describe("SAML: accept responses the IdP sends unasked (default off)."),
};

export const createSsoConnectionInput = z.strictObject({ type: z.enum(SSO_TYPES), ...connectionFields }).meta({
  examples: [
    {
      type: "oidc",
      domains: ["acme.com"],
      issuer: "https://acme.okta.com",
      client_id: "0oa1b2c3d4",
      client_secret: "s3cr3t-from-the-idp",
    },
    { type: "saml", domains: ["acme.com"], idp_metadata_xml: "<EntityDescriptor …>…</EntityDescriptor>" },
  ],
});
export type CreateSsoConnectionInput = z.output<typeof createSsoConnectionInput>;

export const updateSsoConnectionInput = z
  .strictObject({ ...connectionFields, domains: connectionFields.domains.optional() })
  .meta({ examples: [{ enforce: true }] });
export type UpdateSsoConnectionInput = z.output<typeof updateSsoConnectionInput>;

export const listSsoConnectionsQuery = pageQuery;
export type ListSsoConnectionsQuery = z.output<typeof listSsoConnectionsQuery>;

export const ssoConnectionParams = z.strictObject({ org_id: id, connection_id: id });

const certificateSchema = z.object({
  fingerprint_sha256: text(),
  subject: text(LENGTH.VERY_LONG),
  not_after: moment,
});

export const ssoConnectionSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    type: z.enum(SSO_TYPES),
    domains: list(text(), MAX_SSO_DOMAINS),
    default_role_id: z.uuid(),
    enforce: z.boolean(),
    enabled: z.boolean(),
    /** OIDC: the issuer, client id and scopes; null or empty for SAML. */
    issuer: text(2048).nullable(),
    client_id: text().nullable(),
    scopes: list(text(LENGTH.SHORT), 20),
    /** OIDC: the URI to register at the IdP. */
    redirect_uri: text(2048).nullable(),
    /** SAML: the IdP's values, and this app's (the service provider's) to enter at the IdP. */
    idp_entity_id: text(1024).nullable(),
    idp_sso_url: text(2048).nullable(),
    idp_certificates: list(certificateSchema, 5),
    allow_idp_initiated: z.boolean(),
    sp_entity_id: text(2048).nullable(),
    acs_url: text(2048).nullable(),
    metadata_url: text(2048).nullable(),
    ...timestamps,
  })
  .meta({
    examples: [
      {
        id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1b",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        type: "oidc",
        domains: ["acme.com"],
        default_role_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b71",
        enforce: false,
        enabled: true,
        issuer: "https://acme.okta.com",
        client_id: "0oa1b2c3d4",
        scopes: ["openid", "email", "profile"],
        redirect_uri: "https://svc.example.com/api/sso/0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1b/oidc/callback",
        idp_entity_id: null,
        idp_sso_url: null,
        idp_certificates: [],
        allow_idp_initiated: false,
        sp_entity_id: null,
        acs_url: null,
        metadata_url: null,
        ...EXAMPLE_TIMESTAMPS,
      },
    ],
  });
export type SsoConnection = z.input<typeof ssoConnectionSchema>;

export const ssoConnectionListSchema = listOf(ssoConnectionSchema);
