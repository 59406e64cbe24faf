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
import { softDeletable } from "./soft-delete";

// OAuth 2.0 client registrations, addressed by their client_id. Writes need
// svc:system:oauth_clients:write (dangerous: console sessions only).

const BASE = "/api/v1/oauth-clients";
const ONE = `${BASE}/{client_id}`;
const tag = "OAuth clients";
const read = { permission: "svc:system:oauth_clients:read" } as const;
const write = { permission: "svc:system:oauth_clients:write" } as const;

export const oauthClientOperations = {
  list: defineOperation({
    id: "listOAuthClients",
    method: "GET",
    path: BASE,
    tag,
    summary: "List OAuth clients",
    description: "`q` matches name or client_id; `active` filters; sys_admins may pass `include_deleted=true`.",
    access: read,
    query: listOAuthClientsQuery,
    response: oauthClientListSchema,
    handler: ({ query, ...ctx }) => listOAuthClients(ctx, query),
  }),
  register: defineOperation({
    id: "createOAuthClient",
    method: "POST",
    path: BASE,
    tag,
    summary: "Register an OAuth client",
    description:
      "A confidential client's secret is in `client_secret`, in this response only (stored as a SHA-256). Redirect URIs: absolute https (http only for a loopback host), no fragment. Scopes: catalog permissions (400 `unknown_scope`) that a non-sys_admin registrant holds (403 `scope_not_held`).",
    access: write,
    body: createOAuthClientInput,
    response: oauthClientWithSecretSchema,
    created: (client) => client.client_id,
    secret: true,
    errors: ["unknown_scope", "scope_not_held"],
    handler: ({ body, ...ctx }) => createOAuthClient(ctx, body),
  }),
  update: defineOperation({
    id: "updateOAuthClient",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Update an OAuth client",
    description: "`is_active: false` deactivates it. client_type is fixed (400 `immutable_field`).",
    access: write,
    params: clientIdParams,
    body: updateOAuthClientInput,
    response: oauthClientSchema,
    errors: ["not_found", "immutable_field", "unknown_scope", "scope_not_held"],
    handler: ({ params, body, ...ctx }) => updateOAuthClient(ctx, params.client_id, body),
  }),
  rotateSecret: defineOperation({
    id: "rotateOAuthClientSecret",
    method: "POST",
    path: `${ONE}/rotate-secret`,
    tag,
    summary: "Issue a new client secret",
    description:
      "Confidential clients only (409 `conflict` for a public one). The new secret is in `client_secret`, once; the old one stops working.",
    access: write,
    params: clientIdParams,
    response: oauthClientWithSecretSchema,
    secret: true,
    errors: ["not_found", "conflict"],
    handler: ({ params, ...ctx }) => rotateOAuthClientSecret(ctx, params.client_id),
  }),
  ...softDeletable({
    name: "OAuthClient",
    noun: "an OAuth client",
    path: ONE,
    tag,
    params: clientIdParams,
    response: oauthClientSchema,
    access: { read, delete: write, restore: write },
    notes: {
      delete: "It is deactivated and disappears from lists.",
      restore: "It comes back deactivated: activate it with `is_active: true`.",
    },
    get: (ctx, p, options) => getOAuthClient(ctx, p.client_id, options),
    delete: (ctx, p) => deleteOAuthClient(ctx, p.client_id),
    restore: (ctx, p) => restoreOAuthClient(ctx, p.client_id),
  }),
};
