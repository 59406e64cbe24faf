import "server-only";
import {
  changeCreditsInput,
  verifiedApiKeySchema,
  verifyApiKeyInput,
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
  changeCredits,
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
  updateApiKey,
} from "@/server/services/api-keys/service";
import { apiKeyUsage } from "@/server/services/api-keys/usage";
import { verifyApiKey } from "@/server/services/api-keys/verify";
import { defineOperation } from "./operation";

// API keys: issued to the calling user within what it holds, listed, restricted, rolled, revoked
// (also by anyone who found one exposed), and their usage.

const PATH = "/api/admin/users/api-keys";
const tag = "API keys";
// A reference page of their own: with the rest of API keys, one page passes 1 MB.
const budgetTag = "Key budgets and verification";

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
  credits: defineOperation({
    id: "changeApiKeyCredits",
    method: "POST",
    path: `${PATH}/{key_id}/credits`,
    tag: budgetTag,
    summary: "Set, raise or lower one of the caller's keys' credits",
    description:
      "`set` makes the balance `amount` (null: unlimited; a key without credits gets a balance without refill), `increment` and `decrement` add or take away `amount` (never below 0, nor above 10^12). A refill that fell due is applied first. Every process applies the change at once. A rolled key spends its successor's credits: change those (409 here).",
    access: { permission: "svc:system:api_keys:write", sysAdmin: true },
    params: apiKeyIdParams,
    body: changeCreditsInput,
    response: apiKeySchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, body, ...ctx }) => changeCredits(ctx, params.key_id, body),
  }),
  verify: defineOperation({
    id: "verifyApiKey",
    method: "POST",
    path: "/api/v1/api-keys/verify",
    console: false,
    tag: budgetTag,
    summary: "Verify a key presented to one of the platform's services",
    description:
      "For the platform's own services (an orchestrator runtime checking the key a caller sent it), with `svc:system:api_keys:verify`. Always 200 for a well-formed request: `valid` and `code` say whether the key may make this call — `VALID`, `NOT_FOUND` (unknown, malformed or deleted: nothing else is said), `REVOKED`, `EXPIRED`, `IP_NOT_ALLOWED` (outside `allowed_cidrs`, or `client_ip` not given for a key restricted to networks), `RATE_LIMITED`, `ORG_NOT_ALLOWED`, `INSUFFICIENT_PERMISSIONS`, `CREDITS_EXHAUSTED`, checked in that order, as a request with the key is. A verification counts in the key's rate limit and usage and spends `cost` of its credits (default 1) exactly as a request would; `cost: 0` only looks, counting and spending nothing. This route itself counts against the calling key's rate limit.",
    access: { permission: "svc:system:api_keys:verify" },
    reads: true,
    body: verifyApiKeyInput,
    response: verifiedApiKeySchema,
    handler: ({ body, ...ctx }) => verifyApiKey(ctx, body),
  }),
  usage: defineOperation({
    id: "getApiKeyUsage",
    method: "GET",
    path: `${PATH}/{key_id}/usage`,
    tag: budgetTag,
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
