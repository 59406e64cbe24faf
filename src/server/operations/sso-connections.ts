import "server-only";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  createSsoConnectionInput,
  listSsoConnectionsQuery,
  ssoConnectionListSchema,
  ssoConnectionParams,
  ssoConnectionSchema,
  updateSsoConnectionInput,
} from "@/lib/schemas/sso";
import {
  createSsoConnection,
  deleteSsoConnection,
  getSsoConnection,
  listSsoConnections,
  updateSsoConnection,
} from "@/server/services/sso/connections";
import { defineOperation, inOrganization } from "./operation";

// An organization's own identity providers (OIDC or SAML 2.0): its people sign in through them at
// /api/sso/start, just in time, and with enforce on, console sessions made any other way do not
// reach the organization.

const tag = "Single sign-on";
const { BASE, ONE, read, write } = inOrganization("sso-connections", "connection_id", {
  read: "svc:org:sso:read",
  write: "svc:org:sso:write",
});

export const ssoConnectionOperations = {
  list: defineOperation({
    id: "listSsoConnections",
    method: "GET",
    path: BASE,
    tag,
    summary: "List an organization's SSO connections",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listSsoConnectionsQuery,
    response: ssoConnectionListSchema,
    handler: ({ params, query, ...ctx }) => listSsoConnections(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createSsoConnection",
    method: "POST",
    path: BASE,
    tag,
    summary: "Connect an identity provider",
    description:
      "`oidc`: `issuer`, `client_id`, `client_secret` (stored encrypted, never returned), `scopes`; register the answer's `redirect_uri` at the IdP. `saml`: `idp_metadata_xml` as downloaded from the IdP, or `idp_entity_id`, `idp_sso_url` and `idp_certificates`; enter the answer's `sp_entity_id` and `acs_url` at the IdP (or give it `metadata_url`). `domains` must be verified domains of the organization that no other of its connections covers. `default_role_id` (default org_member) is the role people get when they join at their first sign-in; the caller must hold its permissions.",
    access: write,
    params: orgIdParams,
    body: createSsoConnectionInput,
    response: ssoConnectionSchema,
    created: (connection) => connection.id,
    errors: ["not_found", "conflict", "quota_exceeded", "forbidden"],
    handler: ({ params, body, ...ctx }) => createSsoConnection(ctx, params.org_id, body),
  }),
  get: defineOperation({
    id: "getSsoConnection",
    method: "GET",
    path: ONE,
    tag,
    summary: "Read an SSO connection",
    access: read,
    params: ssoConnectionParams,
    response: ssoConnectionSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getSsoConnection(ctx, params.org_id, params.connection_id),
  }),
  update: defineOperation({
    id: "updateSsoConnection",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Change an SSO connection",
    description:
      "Only the fields given change; the type does not. Turning `enforce` on takes effect at once for every console session: those not signed in through this connection no longer reach the organization (sys_admins excepted).",
    access: write,
    params: ssoConnectionParams,
    body: updateSsoConnectionInput,
    response: ssoConnectionSchema,
    errors: ["not_found", "conflict", "forbidden"],
    handler: ({ params, body, ...ctx }) => updateSsoConnection(ctx, params.org_id, params.connection_id, body),
  }),
  delete: defineOperation({
    id: "deleteSsoConnection",
    method: "DELETE",
    path: ONE,
    tag,
    summary: "Remove an SSO connection",
    description: "Nobody signs in through it any more; people who did keep their accounts and memberships.",
    access: write,
    params: ssoConnectionParams,
    response: ssoConnectionSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => deleteSsoConnection(ctx, params.org_id, params.connection_id),
  }),
};
