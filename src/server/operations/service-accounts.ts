import "server-only";
import {
  changeCreditsInput,
  apiKeyListSchema,
  apiKeySchema,
  createApiKeyInput,
  createdApiKeySchema,
  listApiKeysQuery,
  rollApiKeyInput,
  updateApiKeyInput,
} from "@/lib/schemas/api-keys";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  createServiceAccountInput,
  listServiceAccountsQuery,
  serviceAccountKeyParams,
  serviceAccountListSchema,
  serviceAccountParams,
  serviceAccountSchema,
  updateServiceAccountInput,
} from "@/lib/schemas/service-accounts";
import {
  changeServiceAccountKeyCredits,
  createServiceAccountKey,
  listServiceAccountKeys,
  revokeServiceAccountKey,
  rollServiceAccountKey,
  updateServiceAccountKey,
} from "@/server/services/service-accounts/keys";
import {
  createServiceAccount,
  deleteServiceAccount,
  getServiceAccount,
  listServiceAccounts,
  updateServiceAccount,
} from "@/server/services/service-accounts/service";
import { defineOperation, inOrganization } from "./operation";

// An organization's service accounts (machine users of that organization only) and their API keys,
// managed by whoever holds svc:org:service_accounts:write there (dangerous: never through a key).
// Roles and scopes handed to one follow the no-escalation rule in the organization.

const tag = "Service accounts";
// Their keys on a page of their own in the API reference, which keeps each page under 1 MB.
const keysTag = "Service account keys";
const { BASE, ONE, read, write } = inOrganization("service-accounts", "user_id", {
  read: "svc:org:service_accounts:read",
  write: "svc:org:service_accounts:write",
});
const KEYS = `${ONE}/api-keys`;
const KEY = `${KEYS}/{key_id}`;

export const serviceAccountOperations = {
  list: defineOperation({
    id: "listServiceAccounts",
    method: "GET",
    path: BASE,
    tag,
    summary: "An organization's service accounts",
    description: "Newest first, with the org roles each holds. `q` matches username or display name.",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listServiceAccountsQuery,
    response: serviceAccountListSchema,
    handler: ({ params, query, ...ctx }) => listServiceAccounts(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createServiceAccount",
    method: "POST",
    path: BASE,
    tag,
    summary: "Create a service account in the organization",
    description:
      "A user of kind `service`: a member of this organization only, with no password and no console sign-in, holding the org roles `role_ids` here. Each permission of each role must be one you hold in this organization (403 `scope_not_held`, nothing stored); a system role is refused (400). Counts against the tier's `max_members`.",
    access: write,
    params: orgIdParams,
    body: createServiceAccountInput,
    response: serviceAccountSchema,
    created: (account) => account.id,
    errors: ["not_found", "conflict", "scope_not_held", "quota_exceeded"],
    handler: ({ params, body, ...ctx }) => createServiceAccount(ctx, params.org_id, body),
  }),
  get: defineOperation({
    id: "getServiceAccount",
    method: "GET",
    path: ONE,
    tag,
    summary: "One service account of the organization",
    access: read,
    params: serviceAccountParams,
    response: serviceAccountSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => getServiceAccount(ctx, params.org_id, params.user_id),
  }),
  update: defineOperation({
    id: "updateServiceAccount",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Rename a service account or set its org roles",
    description:
      "`role_ids` replaces the account's org roles: each role granted or taken away must be one whose permissions you hold in this organization (403 `scope_not_held`). Its keys' powers follow its roles at once.",
    access: write,
    params: serviceAccountParams,
    body: updateServiceAccountInput,
    response: serviceAccountSchema,
    errors: ["not_found", "scope_not_held"],
    handler: ({ params, body, ...ctx }) => updateServiceAccount(ctx, params.org_id, params.user_id, body),
  }),
  delete: defineOperation({
    id: "deleteServiceAccount",
    method: "DELETE",
    path: ONE,
    tag,
    summary: "Delete a service account",
    description:
      "Its keys are revoked and fail at once, in every process (an audit event each). Taking its roles away needs you to hold them (403 `scope_not_held`).",
    access: write,
    params: serviceAccountParams,
    response: serviceAccountSchema,
    errors: ["not_found", "scope_not_held"],
    handler: ({ params, ...ctx }) => deleteServiceAccount(ctx, params.org_id, params.user_id),
  }),
  listKeys: defineOperation({
    id: "listServiceAccountKeys",
    method: "GET",
    path: KEYS,
    tag: keysTag,
    summary: "A service account's API keys",
    description: "Newest first, revoked ones included (`is_active` false) unless `active` filters.",
    access: read,
    params: serviceAccountParams,
    query: listApiKeysQuery.omit({ user_id: true }),
    response: apiKeyListSchema,
    errors: ["not_found"],
    handler: ({ params, query, ...ctx }) => listServiceAccountKeys(ctx, params.org_id, params.user_id, query),
  }),
  createKey: defineOperation({
    id: "createServiceAccountKey",
    method: "POST",
    path: KEYS,
    tag: keysTag,
    summary: "Issue an API key for a service account",
    description:
      "The body of key creation. Each scope must be one you hold in this organization and one the account holds through its roles (403 `scope_not_held`); the key acts in this organization only and follows the key policies, the organization's included (422 `policy_violation`). The raw key is in `raw_key`, in this response only.",
    access: write,
    params: serviceAccountParams,
    body: createApiKeyInput,
    response: createdApiKeySchema,
    created: (key) => key.id,
    secret: true,
    errors: ["not_found", "unknown_scope", "scope_not_held", "policy_violation"],
    handler: ({ params, body, ...ctx }) => createServiceAccountKey(ctx, params.org_id, params.user_id, body),
  }),
  updateKey: defineOperation({
    id: "updateServiceAccountKey",
    method: "PATCH",
    path: KEY,
    tag: keysTag,
    summary: "Rename, re-limit or restrict a service account's API key",
    description:
      "As for a personal key: `name`, `rate_limit`, `allowed_org_ids`, `allowed_cidrs`; scopes never change. As to issue or roll it, you must hold the key's scopes in this organization (403 `scope_not_held`); the key must follow the key policies, `api_keys.max_rate_limit` included (422 `policy_violation`). Every process applies the change at once.",
    access: write,
    params: serviceAccountKeyParams,
    body: updateApiKeyInput,
    response: apiKeySchema,
    errors: ["not_found", "scope_not_held", "policy_violation"],
    handler: ({ params, body, ...ctx }) =>
      updateServiceAccountKey(ctx, params.org_id, params.user_id, params.key_id, body),
  }),
  rollKey: defineOperation({
    id: "rollServiceAccountKey",
    method: "POST",
    path: `${KEY}/roll`,
    tag: keysTag,
    summary: "Replace a service account's API key with a new one",
    description:
      "As personal keys roll: the same name, scopes, rate limit, restrictions and expiry; the old key works for `grace_period_seconds` more. You must hold the key's scopes in this organization (403 `scope_not_held`); the raw key is in `raw_key`, in this response only.",
    access: write,
    params: serviceAccountKeyParams,
    body: rollApiKeyInput,
    response: createdApiKeySchema,
    status: 201,
    secret: true,
    created: (key) => key.id,
    createdIn: KEYS,
    errors: ["not_found", "conflict", "scope_not_held", "policy_violation"],
    handler: ({ params, body, ...ctx }) =>
      rollServiceAccountKey(ctx, params.org_id, params.user_id, params.key_id, body),
  }),
  changeKeyCredits: defineOperation({
    id: "changeServiceAccountKeyCredits",
    method: "POST",
    path: `${KEY}/credits`,
    tag: keysTag,
    summary: "Set, raise or lower a service account's key's credits",
    description:
      "As for a personal key: `set` (null: unlimited), `increment`, `decrement`. As to issue or roll the key, you must hold its scopes in this organization (403 `scope_not_held`). Every process applies the change at once.",
    access: write,
    params: serviceAccountKeyParams,
    body: changeCreditsInput,
    response: apiKeySchema,
    errors: ["not_found", "conflict", "scope_not_held"],
    handler: ({ params, body, ...ctx }) =>
      changeServiceAccountKeyCredits(ctx, params.org_id, params.user_id, params.key_id, body),
  }),
  revokeKey: defineOperation({
    id: "revokeServiceAccountKey",
    method: "DELETE",
    path: KEY,
    tag: keysTag,
    summary: "Revoke a service account's API key",
    description:
      "The key fails at once, in every process. Revoking a revoked key answers 200 again. As to delete the account, you must hold the permissions of its roles in this organization (403 `scope_not_held`).",
    access: write,
    params: serviceAccountKeyParams,
    response: apiKeySchema,
    errors: ["not_found", "scope_not_held"],
    handler: ({ params, ...ctx }) => revokeServiceAccountKey(ctx, params.org_id, params.user_id, params.key_id),
  }),
};
