import { apiKeyIdParams, apiKeyListSchema, apiKeySchema, createApiKeyInput, createdApiKeySchema, listApiKeysQuery } from "@/lib/schemas/api-keys";
import type { UserActor } from "@/server/auth/actor";
import { createApiKey, listApiKeys, revokeApiKey } from "@/server/services/api-keys/service";
import { defineRoute, RouteResult } from "../route";

// The three key routes of decisions section 4.

const PATH = "/api/admin/users/api-keys";

export const apiKeyRoutes = [
  defineRoute({
    method: "POST",
    path: PATH,
    operationId: "createApiKey",
    tag: "API keys",
    summary: "Create an API key for the calling user",
    description:
      "Needs a sys_admin holding svc:system:api_keys:write. Each scope must be a known permission; a non-sys_admin may only request scopes it holds. The raw key is in `raw_key`, in this response only. Dangerous scopes are stored but never reach a key session (`effective_scopes`).",
    access: { permission: "svc:system:api_keys:write", sysAdmin: true },
    body: createApiKeyInput,
    response: createdApiKeySchema,
    status: 201,
    secret: true,
    errors: ["unknown_scope", "scope_not_held", "validation_failed"],
    handler: async ({ actor, body }) => {
      const key = await createApiKey(actor, (actor as UserActor).userId, body);
      return new RouteResult(key, { status: 201, headers: { Location: `${PATH}/${key.id}` } });
    },
  }),
  defineRoute({
    method: "GET",
    path: PATH,
    operationId: "listApiKeys",
    tag: "API keys",
    summary: "List API keys",
    description: "The caller's own keys, newest first, revoked ones included (`is_active` false). A sys_admin may pass `user_id`.",
    access: { permission: "svc:system:api_keys:read" },
    query: listApiKeysQuery,
    response: apiKeyListSchema,
    handler: ({ actor, query }) => listApiKeys(actor, query),
  }),
  defineRoute({
    method: "DELETE",
    path: `${PATH}/{key_id}`,
    operationId: "revokeApiKey",
    tag: "API keys",
    summary: "Revoke one of the caller's API keys",
    description: "The key fails at once afterwards. Revoking a revoked key answers 200 again; another user's key is a 404.",
    access: { permission: "svc:system:api_keys:revoke", sysAdmin: true },
    params: apiKeyIdParams,
    response: apiKeySchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => revokeApiKey(actor, params.key_id),
  }),
];
