import "server-only";
import {
  clientIdParams,
  createOAuthClientInput,
  listOAuthClientsQuery,
  oauthClientListSchema,
  oauthClientSchema,
  oauthClientWithSecretSchema,
  updateOAuthClientInput,
} from "@/lib/schemas/oauth-clients";
import { includeDeletedQuery } from "@/lib/schemas/common";
import {
  createOAuthClient,
  deleteOAuthClient,
  getOAuthClient,
  listOAuthClients,
  restoreOAuthClient,
  rotateOAuthClientSecret,
  updateOAuthClient,
} from "@/server/services/oauth-clients/service";
import { defineOperation } from "./operation";

// OAuth 2.0 client registrations, addressed by their client_id. Writes need
// svc:system:oauth_clients:write (dangerous: console sessions only).

const BASE = "/api/v1/oauth-clients";
const ONE = `${BASE}/{client_id}`;
const tag = "OAuth clients";
const read = { permission: "svc:system:oauth_clients:read" } as const;
const write = { permission: "svc:system:oauth_clients:write" } as const;

export const oauthClientOperations = {
  list: defineOperation({
    id: "listOAuthClients", method: "GET", path: BASE, tag, summary: "List OAuth clients",
    description: "`q` matches name or client_id; `active` filters; sys_admins may pass `include_deleted=true`.",
    access: read, query: listOAuthClientsQuery, response: oauthClientListSchema,
    handler: ({ actor, query }) => listOAuthClients(actor, query),
  }),
  register: defineOperation({
    id: "createOAuthClient", method: "POST", path: BASE, tag, summary: "Register an OAuth client",
    description:
      "A confidential client's secret is in `client_secret`, in this response only (stored as a SHA-256). Redirect URIs: absolute https (http only for a loopback host), no fragment. Scopes: catalog permissions (400 `unknown_scope`) that a non-sys_admin registrant holds (403 `scope_not_held`).",
    access: write, body: createOAuthClientInput, response: oauthClientWithSecretSchema, status: 201, created: (client) => client.client_id, secret: true,
    errors: ["unknown_scope", "scope_not_held"],
    handler: ({ actor, body }) => createOAuthClient(actor, body),
  }),
  get: defineOperation({
    id: "getOAuthClient", method: "GET", path: ONE, tag, summary: "Read an OAuth client",
    access: read, params: clientIdParams, query: includeDeletedQuery, response: oauthClientSchema, errors: ["not_found"],
    handler: ({ actor, params, query }) => getOAuthClient(actor, params.client_id, { includeDeleted: query.include_deleted }),
  }),
  update: defineOperation({
    id: "updateOAuthClient", method: "PATCH", path: ONE, tag, summary: "Update an OAuth client",
    description: "`is_active: false` deactivates it. client_type is fixed (400 `immutable_field`).",
    access: write, params: clientIdParams, body: updateOAuthClientInput, response: oauthClientSchema,
    errors: ["not_found", "immutable_field", "unknown_scope", "scope_not_held"],
    handler: ({ actor, params, body }) => updateOAuthClient(actor, params.client_id, body),
  }),
  delete: defineOperation({
    id: "deleteOAuthClient", method: "DELETE", path: ONE, tag, summary: "Delete an OAuth client (soft)",
    description: "It is deactivated and disappears from lists.",
    access: write, params: clientIdParams, response: oauthClientSchema, errors: ["not_found"],
    handler: ({ actor, params }) => deleteOAuthClient(actor, params.client_id),
  }),
  restore: defineOperation({
    id: "restoreOAuthClient", method: "POST", path: `${ONE}/restore`, tag, summary: "Restore a deleted OAuth client",
    description: "It comes back deactivated: activate it with `is_active: true`.",
    access: { ...write, sysAdmin: true }, params: clientIdParams, response: oauthClientSchema, errors: ["not_found"],
    handler: ({ actor, params }) => restoreOAuthClient(actor, params.client_id),
  }),
  rotateSecret: defineOperation({
    id: "rotateOAuthClientSecret", method: "POST", path: `${ONE}/rotate-secret`, tag, summary: "Issue a new client secret",
    description: "Confidential clients only (409 `conflict` for a public one). The new secret is in `client_secret`, once; the old one stops working.",
    access: write, params: clientIdParams, response: oauthClientWithSecretSchema, secret: true, errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => rotateOAuthClientSecret(actor, params.client_id),
  }),
};
