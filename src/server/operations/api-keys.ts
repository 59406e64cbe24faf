import "server-only";
import { z } from "zod";
import { apiKeyIdParams, apiKeyListSchema, apiKeySchema, createApiKeyInput, createdApiKeySchema, listApiKeysQuery } from "@/lib/schemas/api-keys";
import type { UserActor } from "@/server/auth/actor";
import { apiKeyPolicy, createApiKey, listApiKeys, revokeApiKey } from "@/server/services/api-keys/service";
import { defineOperation } from "./operation";

// API keys: issued to the calling user within what it holds, listed, revoked.

const PATH = "/api/admin/users/api-keys";
const tag = "API keys";

export const apiKeyOperations = {
  create: defineOperation({
    id: "createApiKey", method: "POST", path: PATH, tag, summary: "Create an API key for the calling user",
    description:
      "Each scope must be a known permission; a non-sys_admin may only request scopes it holds. The raw key is in `raw_key`, in this response only. Dangerous scopes are stored but never reach a key session (`effective_scopes`).",
    access: { permission: "svc:system:api_keys:write", sysAdmin: true },
    body: createApiKeyInput, response: createdApiKeySchema, status: 201, created: (key) => key.id, secret: true,
    errors: ["unknown_scope", "scope_not_held"],
    handler: ({ actor, body }) => createApiKey(actor, (actor as UserActor).userId, body),
  }),
  list: defineOperation({
    id: "listApiKeys", method: "GET", path: PATH, tag, summary: "List API keys",
    description: "The caller's own keys, newest first, revoked ones included (`is_active` false). A sys_admin may pass `user_id`.",
    access: { permission: "svc:system:api_keys:read" },
    query: listApiKeysQuery, response: apiKeyListSchema,
    handler: ({ actor, query }) => listApiKeys(actor, query),
  }),
  revoke: defineOperation({
    id: "revokeApiKey", method: "DELETE", path: `${PATH}/{key_id}`, tag, summary: "Revoke one of the caller's API keys",
    description: "The key fails at once afterwards. Revoking a revoked key answers 200 again; another user's key is a 404.",
    access: { permission: "svc:system:api_keys:revoke", sysAdmin: true },
    params: apiKeyIdParams, response: apiKeySchema, errors: ["not_found"],
    handler: ({ actor, params }) => revokeApiKey(actor, params.key_id),
  }),
  policy: defineOperation({
    id: "getApiKeyPolicy", method: "GET", path: null, tag, summary: "The platform's key policy, which the create dialog follows",
    access: { permission: "svc:system:api_keys:read" },
    response: z.object({ max_lifetime_days: z.number().int().nullable() }),
    handler: ({ actor }) => apiKeyPolicy(actor),
  }),
};
