import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import { keyRing } from "@/server/crypto/key-ring";
import { decrypt, encrypt, isCurrent, SecretUnreadable } from "@/server/crypto/secret-box";
import { log } from "@/server/log";
import type { DataLayer } from "@/server/db/data-layer";
import { env } from "@/server/env";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import type {
  CreateLlmConfigInput,
  ListLlmConfigsQuery,
  llmConfigSchema,
  UpdateLlmConfigInput,
} from "@/lib/schemas/llm-configs";
import { newestFirst, paginate } from "@/server/services/pagination";
import { baseUrlProblem } from "./base-url";

// Organization LLM configs (bring your own key). The provider key is encrypted here before it is
// stored and never leaves this module except as its last 4 characters.

type Row = Prisma.OrganizationLlmConfigGetPayload<object>;
type LlmConfig = z.output<typeof llmConfigSchema>;

/** Where a provider key is stored: what its ciphertext is bound to. */
const keyPlace = (row: { id: string; org_id: string }) => `organization_llm_configs:${row.id}:${row.org_id}`;

/** The provider key's last 4 characters, or null when it cannot be decrypted (logged, never fatal). */
function last4(row: Row): string | null {
  try {
    return decrypt(keyRing(), row.api_key, keyPlace(row)).slice(-4);
  } catch (error) {
    if (!(error instanceof SecretUnreadable)) throw error;
    log.error("an LLM config's provider key cannot be decrypted", {
      config_id: row.id,
      org_id: row.org_id,
      reason: error.message,
    });
    return null;
  }
}

// A mapper: the provider key is answered by its last 4 characters only.
function toLlmConfig(row: Row): LlmConfig {
  const key4 = last4(row);
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    provider: row.provider,
    api_key_last4: key4,
    api_key_readable: key4 !== null,
    base_url: row.base_url,
    additional_config: row.additional_config as LlmConfig["additional_config"],
    is_enabled: row.is_enabled,
    created_at: row.created_at,
    is_deleted: row.is_deleted,
    updated_at: row.updated_at,
  };
}

function checkBaseUrl(value: string | null | undefined) {
  if (!value) return;
  const problem = baseUrlProblem(value, env().SVC_ALLOW_HTTP_LOOPBACK === "1");
  if (problem) throw validationFailed([{ path: "base_url", message: problem }]);
}

export async function createLlmConfig(ctx: Context, orgId: string, input: CreateLlmConfigInput) {
  checkBaseUrl(input.base_url);
  const { db } = ctx;
  await requireOrganization(db, orgId);
  // The ciphertext is bound to the row, so the row's id is drawn first.
  const [{ id }] = (await db.$queryRaw<{ id: string }[]>`SELECT svc_uuid_v7()::text AS id`) as [{ id: string }];
  const row = await db.organizationLlmConfig.create({
    data: {
      id,
      org_id: orgId,
      name: input.name,
      provider: input.provider,
      api_key: encrypt(keyRing(), input.api_key, keyPlace({ id, org_id: orgId })),
      base_url: input.base_url ?? null,
      additional_config: input.additional_config as Prisma.InputJsonValue,
      is_enabled: input.is_enabled,
    },
  });
  return toLlmConfig(row);
}

/** An organization's configs; `enabled` true is what new orchestrators may choose from. */
export async function listLlmConfigs(ctx: Context, orgId: string, query: ListLlmConfigsQuery) {
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  await requireOrganization(db, orgId);
  const where = { org_id: orgId, ...(query.enabled === undefined ? {} : { is_enabled: query.enabled }) };
  return paginate(
    query,
    newestFirst,
    (w) => db.organizationLlmConfig.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toLlmConfig,
  );
}

async function requireConfig(db: DataLayer, orgId: string, configId: string) {
  const row = await db.organizationLlmConfig.findFirst({ where: { id: configId, org_id: orgId } });
  if (!row) throw notFound("LLM config");
  return row;
}

export async function getLlmConfig(
  ctx: Context,
  orgId: string,
  configId: string,
  options: { includeDeleted?: boolean } = {},
) {
  return toLlmConfig(
    await requireConfig(options.includeDeleted === true ? ctx.includingDeleted() : ctx.db, orgId, configId),
  );
}

export async function updateLlmConfig(ctx: Context, orgId: string, configId: string, input: UpdateLlmConfigInput) {
  const { db } = ctx;
  const existing = await requireConfig(db, orgId, configId);
  if (input.provider !== undefined && input.provider !== existing.provider) {
    throw new DomainError("immutable_field", "The provider cannot change after creation.", {
      errors: [{ path: "provider", message: "cannot change after creation" }],
    });
  }
  checkBaseUrl(input.base_url);
  const { provider: _provider, api_key, additional_config, ...rest } = input;
  const row = await db.organizationLlmConfig.update({
    where: { id: configId },
    data: {
      ...rest,
      ...(api_key === undefined ? {} : { api_key: encrypt(keyRing(), api_key, keyPlace(existing)) }),
      ...(additional_config === undefined ? {} : { additional_config: additional_config as Prisma.InputJsonValue }),
    },
  });
  return toLlmConfig(row);
}

export async function deleteLlmConfig(ctx: Context, orgId: string, configId: string) {
  const { db } = ctx;
  await requireConfig(db, orgId, configId);
  return toLlmConfig(await db.organizationLlmConfig.update({ where: { id: configId }, data: { is_deleted: true } }));
}

/** Brings a deleted config back; a live one answers as it is. */
export async function restoreLlmConfig(ctx: Context, orgId: string, configId: string) {
  const { db } = ctx;
  const deleted = await db.organizationLlmConfig.findFirst({
    where: { id: configId, org_id: orgId, is_deleted: true },
  });
  if (!deleted) return getLlmConfig(ctx, orgId, configId);
  return toLlmConfig(
    await db.organizationLlmConfig.update({ where: { id: configId, is_deleted: true }, data: { is_deleted: false } }),
  );
}

/**
 * Re-encrypts every stored provider key that is not yet under the current key version and bound to
 * its row. Answers how many changed, and the ids of those that cannot be decrypted (left as they are).
 */
export async function reencryptLlmKeys(ctx: Context): Promise<{ changed: number; unreadable: string[] }> {
  const ring = keyRing();
  const db = ctx.includingDeleted();
  const rows = await db.organizationLlmConfig.findMany({ select: { id: true, org_id: true, api_key: true } });
  const result = { changed: 0, unreadable: [] as string[] };
  for (const row of rows) {
    if (isCurrent(ring, row.api_key)) continue;
    let plaintext: string;
    try {
      plaintext = decrypt(ring, row.api_key, keyPlace(row));
    } catch (error) {
      if (!(error instanceof SecretUnreadable)) throw error;
      result.unreadable.push(row.id);
      continue;
    }
    await db.organizationLlmConfig.update({
      where: { id: row.id },
      data: { api_key: encrypt(ring, plaintext, keyPlace(row)) },
    });
    result.changed++;
  }
  return result;
}
