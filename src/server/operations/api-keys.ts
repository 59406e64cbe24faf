import "server-only";
import {
  apiKeyIdParams,
  apiKeyListSchema,
  apiKeySchema,
  createApiKeyInput,
  createdApiKeySchema,
  keyPolicySchema,
  listApiKeysQuery,
  revokeLeakedInput,
  revokeAllResponse,
  revokeLeakedResponse,
  rollApiKeyInput,
  updateApiKeyInput,
  usageQuery,
  usageSchema,
} from "@/lib/schemas/api-keys";
import { systemActor, type UserActor } from "@/server/auth/actor";
import { userIdParams } from "@/lib/schemas/users";
import { revokeAllApiKeys, revokeLeakedKeys } from "@/server/services/api-keys/revocation";
import {
  apiKeyPolicy,
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
  updateApiKey,
} from "@/server/services/api-keys/service";
import { apiKeyUsage } from "@/server/services/api-keys/usage";
import { defineOperation } from "./operation";

// API keys: issued to the calling user within what it holds, listed, restricted, rolled, revoked
// (also by anyone who found one exposed), and their usage.

const PATH = "/api/admin/users/api-keys";
const tag = "API keys";

export const apiKeyOperations = {
  create: defineOperation({
    id: "createApiKey",
    method: "POST",
    path: PATH,
    tag,
    summary: "Create an API key for the calling user",
    description:
      "Each scope must be a known permission; a non-sys_admin may only request scopes it holds. The raw key is in `raw_key`, in this response only. Dangerous scopes are stored but never reach a key session (`effective_scopes`).",
    access: { permission: "svc:system:api_keys:write", sysAdmin: true },
    body: createApiKeyInput,
    response: createdApiKeySchema,
    created: (key) => key.id,
    secret: true,
    errors: ["unknown_scope", "scope_not_held", "policy_violation"],
    handler: ({ body, ...ctx }) => createApiKey(ctx, (ctx.actor as UserActor).userId, body),
  }),
  list: defineOperation({
    id: "listApiKeys",
    method: "GET",
    path: PATH,
    tag,
    summary: "List API keys",
    description:
      "The caller's own keys, newest first, revoked ones included (`is_active` false). A sys_admin may pass `user_id`. `expiring_within_days` keeps the active keys that expire within that many days.",
    access: { permission: "svc:system:api_keys:read" },
    query: listApiKeysQuery,
    response: apiKeyListSchema,
    handler: ({ query, ...ctx }) => listApiKeys(ctx, query),
  }),
  revoke: defineOperation({
    id: "revokeApiKey",
    method: "DELETE",
    path: `${PATH}/{key_id}`,
    tag,
    summary: "Revoke one of the caller's API keys",
    description:
      "The key fails at once afterwards. Revoking a revoked key answers 200 again; another user's key is a 404.",
    access: { permission: "svc:system:api_keys:revoke", sysAdmin: true },
    params: apiKeyIdParams,
    response: apiKeySchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => revokeApiKey(ctx, params.key_id),
  }),
  get: defineOperation({
    id: "getApiKey",
    method: "GET",
    path: `${PATH}/{key_id}`,
    tag,
    summary: "One API key",
    description: "The caller's own key, or (a sys_admin) anyone's.",
    access: { permission: "svc:system:api_keys:read" },
    params: apiKeyIdParams,
    response: apiKeySchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getApiKey(ctx, params.key_id),
  }),
  update: defineOperation({
    id: "updateApiKey",
    method: "PATCH",
    path: `${PATH}/{key_id}`,
    tag,
    summary: "Rename, re-limit or restrict one of the caller's API keys",
    description:
      "Changes `name`, `rate_limit`, `allowed_org_ids` (organizations the owner belongs to; null: all of them) and `allowed_cidrs` (null: any address); scopes never change. Every process applies the change at once. An active key that no longer follows the key policy (422 `policy_violation`) is rolled or revoked instead.",
    access: { permission: "svc:system:api_keys:write", sysAdmin: true },
    params: apiKeyIdParams,
    body: updateApiKeyInput,
    response: apiKeySchema,
    errors: ["not_found", "policy_violation"],
    handler: ({ params, body, ...ctx }) => updateApiKey(ctx, params.key_id, body),
  }),
  roll: defineOperation({
    id: "rollApiKey",
    method: "POST",
    path: `${PATH}/{key_id}/roll`,
    tag,
    summary: "Replace one of the caller's API keys with a new one",
    description:
      "A new key with the same name, scopes, rate limit, restrictions and expiry; the raw key is in `raw_key`, in this response only. The old key's `expires_at` becomes now plus `grace_period_seconds` (0: refused at once); rolling it again during that grace gives a new key the expiry it had before its first roll. A revoked or expired key cannot be rolled (409); the new key must follow the key policy (422 `policy_violation`).",
    access: { permission: "svc:system:api_keys:write", sysAdmin: true },
    params: apiKeyIdParams,
    body: rollApiKeyInput,
    response: createdApiKeySchema,
    status: 201,
    secret: true,
    created: (key) => key.id,
    createdIn: PATH,
    errors: ["not_found", "conflict", "policy_violation"],
    handler: ({ params, body, ...ctx }) => rollApiKey(ctx, params.key_id, body),
  }),
  usage: defineOperation({
    id: "getApiKeyUsage",
    method: "GET",
    path: `${PATH}/{key_id}/usage`,
    tag,
    summary: "A key's requests per hour, by outcome",
    description:
      "Counts per hour and outcome (`2xx`, `4xx`, `401`, `403`, `429`, `5xx`) from `from` (default: 7 days ago) to `to` (default: now), at most 90 days; hours without requests are left out. Counts reach the database within a few seconds.",
    access: { permission: "svc:system:api_keys:read" },
    params: apiKeyIdParams,
    query: usageQuery,
    response: usageSchema,
    errors: ["not_found"],
    handler: ({ params, query, ...ctx }) => apiKeyUsage(ctx, params.key_id, query),
  }),
  revokeLeaked: defineOperation({
    id: "revokeLeakedApiKeys",
    method: "POST",
    path: "/api/v1/api-keys/revoke-leaked",
    console: false,
    tag,
    summary: "Report exposed API keys: each usable one is revoked at once",
    description:
      'No credentials: holding a raw key is enough to end it (for secret scanners). The answer is `{"received": n}` whatever the values were, so it reveals nothing. At most 10 calls per minute per client address.',
    access: "public",
    addressLimit: { name: "revoke-leaked", requests: 10, windowSeconds: 60 },
    body: revokeLeakedInput,
    response: revokeLeakedResponse,
    // The keys are looked up in the database (the 429 of its limit per address is implied).
    errors: ["unavailable"],
    handler: ({ body, ...ctx }) => revokeLeakedKeys(ctx.actingAs(systemActor("leaked-key-report")), body.keys),
  }),
  policy: defineOperation({
    id: "getApiKeyPolicy",
    method: "GET",
    path: null,
    tag,
    summary: "The platform's key policy, which the create dialog follows",
    access: { permission: "svc:system:api_keys:read" },
    response: keyPolicySchema,
    handler: ({ ...ctx }) => apiKeyPolicy(ctx),
  }),
  revokeAll: defineOperation({
    id: "revokeAllApiKeys",
    method: "POST",
    path: "/api/admin/users/{user_id}/api-keys/revoke-all",
    tag,
    summary: "Revoke every active key of a user or service account",
    description:
      'Every active key of the user fails at once, in every process; each is an audit event of its own. Answers `{"revoked": n}`.',
    access: { permission: "svc:system:api_keys:revoke", sysAdmin: true },
    params: userIdParams,
    response: revokeAllResponse,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => revokeAllApiKeys(ctx, params.user_id),
  }),
};
