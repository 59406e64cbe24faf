import "server-only";
import { auditName, type Actor } from "@/server/auth/actor";
import { requireHeldByActor, requireKnownScopes } from "@/server/auth/escalation";
import { dataLayer } from "@/server/db/data-layer";
import { isPermission } from "@/lib/permissions";
import {
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
  updateApiKey,
} from "@/server/services/api-keys/service";
import { requireOrganization } from "@/server/services/organizations/service";
import type {
  ApiKey,
  CreateApiKeyInput,
  CreatedApiKey,
  ListApiKeysQuery,
  RollApiKeyInput,
  UpdateApiKeyInput,
} from "@/lib/schemas/api-keys";
import { requireMayEndServiceAccount, requireServiceAccount } from "./service";

// A service account's API keys: the API key service's own functions, on the account's keys. Issuing
// one follows the no-escalation rule in the organization: every scope must be one the actor holds
// there (and, as for every key, one the account holds through its roles). Rolling or changing one
// (its restrictions, rate limit, name) follows the same rule, on the key's scopes: what a manager
// could not issue, it cannot loosen either. Revoking one needs what deleting the account needs.

/** The account, in that organization, whose keys the call is about. */
async function accountKeys(actor: Actor, orgId: string, userId: string) {
  const db = dataLayer(auditName(actor));
  await requireOrganization(db, orgId);
  await requireServiceAccount(db, orgId, userId);
  return { userId };
}

export async function listServiceAccountKeys(
  actor: Actor,
  orgId: string,
  userId: string,
  query: Omit<ListApiKeysQuery, "user_id">,
): Promise<{ data: ApiKey[]; next_cursor: string | null }> {
  return listApiKeys(actor, query, await accountKeys(actor, orgId, userId));
}

export async function createServiceAccountKey(
  actor: Actor,
  orgId: string,
  userId: string,
  input: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  const of = await accountKeys(actor, orgId, userId);
  requireHeldByActor(actor, requireKnownScopes(input.scopes, "scopes"), orgId);
  return createApiKey(actor, of.userId, input);
}

export async function updateServiceAccountKey(
  actor: Actor,
  orgId: string,
  userId: string,
  keyId: string,
  input: UpdateApiKeyInput,
): Promise<ApiKey> {
  const of = await accountKeys(actor, orgId, userId);
  await requireKeyScopesHeld(actor, orgId, keyId, of);
  return updateApiKey(actor, keyId, input, of);
}

/** The key's scopes must be ones the actor holds in the organization (403 `scope_not_held`), as to issue it. */
async function requireKeyScopesHeld(actor: Actor, orgId: string, keyId: string, of: { userId: string }) {
  const { scopes } = await getApiKey(actor, keyId, of);
  requireHeldByActor(actor, scopes.filter(isPermission), orgId);
}

export async function rollServiceAccountKey(
  actor: Actor,
  orgId: string,
  userId: string,
  keyId: string,
  input: RollApiKeyInput,
): Promise<CreatedApiKey> {
  const of = await accountKeys(actor, orgId, userId);
  // A roll hands the caller a new raw key with the old one's scopes: only for a caller who could issue them.
  await requireKeyScopesHeld(actor, orgId, keyId, of);
  return rollApiKey(actor, keyId, input, of);
}

export async function revokeServiceAccountKey(
  actor: Actor,
  orgId: string,
  userId: string,
  keyId: string,
): Promise<ApiKey> {
  // Ending the account's key is part of ending the account: the same power is needed.
  await requireMayEndServiceAccount(actor, dataLayer(auditName(actor)), orgId, userId);
  return revokeApiKey(actor, keyId, { userId });
}
