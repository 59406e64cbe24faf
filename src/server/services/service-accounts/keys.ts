import "server-only";
import type { Context } from "@/server/db/context";
import { requireHeldByActor, requireKnownScopes } from "@/server/auth/escalation";
import { isPermission } from "@/lib/permissions";
import {
  changeCredits,
  createApiKey,
  getApiKey,
  listApiKeys,
  revokeApiKey,
  rollApiKey,
  updateApiKey,
  type IssueKeyInput,
} from "@/server/services/api-keys/service";
import { requireOrganization } from "@/server/services/organizations/service";
import type { ChangeCreditsInput, ListApiKeysQuery, RollApiKeyInput, UpdateApiKeyInput } from "@/lib/schemas/api-keys";
import type { ApiKey, CreatedApiKey } from "@/server/services/api-keys/rows";
import { requireMayEndServiceAccount, requireServiceAccount } from "./service";

// A service account's API keys: the API key service's own functions, on the account's keys. Issuing
// one follows the no-escalation rule in the organization: every scope must be one the actor holds
// there (and, as for every key, one the account holds through its roles). Rolling or changing one
// (its restrictions, rate limit, name) follows the same rule, on the key's scopes: what a manager
// could not issue, it cannot loosen either (nor its budget). Revoking one needs what deleting the account needs.

/** The account, in that organization, whose keys the call is about. */
async function accountKeys(ctx: Context, orgId: string, userId: string) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  await requireServiceAccount(db, orgId, userId);
  return { userId };
}

export async function listServiceAccountKeys(
  ctx: Context,
  orgId: string,
  userId: string,
  query: Omit<ListApiKeysQuery, "user_id">,
): Promise<{ data: ApiKey[]; next_cursor: string | null }> {
  return listApiKeys(ctx, query, await accountKeys(ctx, orgId, userId));
}

export async function createServiceAccountKey(
  ctx: Context,
  orgId: string,
  userId: string,
  input: IssueKeyInput,
): Promise<CreatedApiKey> {
  const of = await accountKeys(ctx, orgId, userId);
  requireHeldByActor(ctx.actor, requireKnownScopes(input.scopes, "scopes"), orgId);
  return createApiKey(ctx, of.userId, input);
}

export async function updateServiceAccountKey(
  ctx: Context,
  orgId: string,
  userId: string,
  keyId: string,
  input: UpdateApiKeyInput,
): Promise<ApiKey> {
  const of = await accountKeys(ctx, orgId, userId);
  await requireKeyScopesHeld(ctx, orgId, keyId, of);
  return updateApiKey(ctx, keyId, input, of);
}

export async function changeServiceAccountKeyCredits(
  ctx: Context,
  orgId: string,
  userId: string,
  keyId: string,
  change: ChangeCreditsInput,
): Promise<ApiKey> {
  const of = await accountKeys(ctx, orgId, userId);
  await requireKeyScopesHeld(ctx, orgId, keyId, of);
  return changeCredits(ctx, keyId, change, of);
}

/** The key's scopes must be ones the actor holds in the organization (403 `scope_not_held`), as to issue it. */
async function requireKeyScopesHeld(ctx: Context, orgId: string, keyId: string, of: { userId: string }) {
  const { scopes } = await getApiKey(ctx, keyId, of);
  requireHeldByActor(ctx.actor, scopes.filter(isPermission), orgId);
}

export async function rollServiceAccountKey(
  ctx: Context,
  orgId: string,
  userId: string,
  keyId: string,
  input: RollApiKeyInput,
): Promise<CreatedApiKey> {
  const of = await accountKeys(ctx, orgId, userId);
  // A roll hands the caller a new raw key with the old one's scopes: only for a caller who could issue them.
  await requireKeyScopesHeld(ctx, orgId, keyId, of);
  return rollApiKey(ctx, keyId, input, of);
}

export async function revokeServiceAccountKey(
  ctx: Context,
  orgId: string,
  userId: string,
  keyId: string,
): Promise<ApiKey> {
  // Ending the account's key is part of ending the account: the same power is needed.
  await requireMayEndServiceAccount(ctx.actor, ctx.db, orgId, userId);
  return revokeApiKey(ctx, keyId, { userId });
}
