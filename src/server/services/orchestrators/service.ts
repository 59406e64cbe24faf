import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import { lockOrganization, requireWithinQuota } from "@/server/services/quotas";
import { checkPluginUse } from "@/server/services/plugins/service";
import { checkInstanceConfig, hashFor, settingLayers } from "@/server/services/settings/service";
import type {
  CreateOrchestratorInput,
  ListOrchestratorsQuery,
  orchestratorSchema,
  UpdateOrchestratorInput,
} from "@/lib/schemas/orchestrators";
import { containing } from "@/server/services/search";

// Orchestrator instances (tier 4). framework_type and mode are fixed at creation; config keys obey
// the settings tiers; plugins used must be in the organization's catalog with valid settings;
// config_hash follows the effective config; max_orchestrators is enforced.

type Row = Prisma.OrchestratorInstanceGetPayload<object>;
type Orchestrator = z.output<typeof orchestratorSchema>;
type JsonObject = Record<string, Prisma.JsonValue>;

// The JSON columns typed as the objects the schema declares; the rest is the row.
const toOrchestrator = (row: Row): Orchestrator => ({
  ...row,
  config: row.config as Orchestrator["config"],
  plugin_settings: row.plugin_settings as Orchestrator["plugin_settings"],
});

/** Room for one more instance within the tier's max_orchestrators, the organization locked by the caller. */
async function requireRoomForInstance(
  tx: Pick<DataLayer, "organization" | "platformSetting" | "orchestratorInstance">,
  orgId: string,
) {
  const org = await requireOrganization(tx, orgId);
  await requireWithinQuota(
    tx,
    org.subscription_tier,
    "max_orchestrators",
    await tx.orchestratorInstance.count({ where: { org_id: orgId } }),
  );
}

export async function createOrchestrator(ctx: Context, orgId: string, input: CreateOrchestratorInput) {
  const row = await ctx.db.$transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    await requireRoomForInstance(tx, orgId);
    const layers = await settingLayers(tx, orgId);
    checkInstanceConfig(layers, input.config as JsonObject);
    await checkPluginUse(tx, orgId, input.mode, input.config, input.plugin_settings);
    return tx.orchestratorInstance.create({
      data: {
        ...input,
        org_id: orgId,
        config: input.config as Prisma.InputJsonValue,
        plugin_settings: input.plugin_settings as Prisma.InputJsonValue,
        config_hash: hashFor(layers, { ...input, whoami: input.whoami ?? null }),
      },
    });
  });
  return toOrchestrator(row);
}

export async function listOrchestrators(ctx: Context, orgId: string, query: ListOrchestratorsQuery) {
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  await requireOrganization(db, orgId);
  const where: Prisma.OrchestratorInstanceWhereInput = {
    org_id: orgId,
    ...(query.status ? { status: query.status } : {}),
    ...(query.tier ? { tier: query.tier } : {}),
    ...(query.framework_type ? { framework_type: query.framework_type } : {}),
    ...(query.mode ? { mode: query.mode } : {}),
    ...(query.q ? { name: containing(query.q) } : {}),
  };
  return paginate(
    query,
    newestFirst,
    (w) => db.orchestratorInstance.findMany({ where: { ...where, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toOrchestrator,
  );
}

async function requireInstance(db: Pick<DataLayer, "orchestratorInstance">, orgId: string, id: string) {
  const row = await db.orchestratorInstance.findFirst({ where: { id, org_id: orgId } });
  if (!row) throw notFound("orchestrator instance");
  return row;
}

export async function getOrchestrator(
  ctx: Context,
  orgId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
) {
  return toOrchestrator(
    await requireInstance(options.includeDeleted === true ? ctx.includingDeleted() : ctx.db, orgId, id),
  );
}

export async function updateOrchestrator(ctx: Context, orgId: string, id: string, input: UpdateOrchestratorInput) {
  const row = await ctx.db.$transaction(async (tx) => {
    const existing = await requireInstance(tx, orgId, id);
    const changed = (["framework_type", "mode"] as const).filter(
      (f) => input[f] !== undefined && input[f] !== existing[f],
    );
    if (changed.length > 0) {
      throw new DomainError("immutable_field", `Fixed at creation: ${changed.join(", ")}.`, {
        errors: changed.map((path) => ({ path, message: "cannot change after creation" })),
      });
    }
    const { framework_type: _f, mode: _m, config, plugin_settings, ...rest } = input;
    if (config !== undefined || plugin_settings !== undefined) {
      await checkPluginUse(
        tx,
        orgId,
        existing.mode,
        (config ?? existing.config) as JsonObject,
        (plugin_settings ?? existing.plugin_settings) as JsonObject,
      );
    }
    const layers = await settingLayers(tx, orgId);
    if (config !== undefined) checkInstanceConfig(layers, config as JsonObject);
    const next = {
      ...existing,
      ...rest,
      config: config ?? existing.config,
      plugin_settings: plugin_settings ?? existing.plugin_settings,
    };
    return tx.orchestratorInstance.update({
      where: { id },
      data: {
        ...rest,
        ...(config === undefined ? {} : { config: config as Prisma.InputJsonValue }),
        ...(plugin_settings === undefined ? {} : { plugin_settings: plugin_settings as Prisma.InputJsonValue }),
        config_hash: hashFor(layers, next),
      },
    });
  });
  return toOrchestrator(row);
}

/** Soft delete, refused while a live central point refers to the instance. */
export async function deleteOrchestrator(ctx: Context, orgId: string, id: string) {
  const row = await ctx.db.$transaction(async (tx) => {
    await requireInstance(tx, orgId, id);
    const referencing = await tx.centralPoint.findMany({ where: { orchestrator_id: id }, select: { name: true } });
    if (referencing.length > 0) {
      throw new DomainError(
        "conflict",
        `Central points refer to this instance: ${referencing.map((c) => c.name).join(", ")}. Point them elsewhere or delete them first.`,
      );
    }
    return tx.orchestratorInstance.update({ where: { id }, data: { is_deleted: true } });
  });
  return toOrchestrator(row);
}

/** Brings a deleted instance back, within the tier's max_orchestrators; a live one answers as it is. */
export async function restoreOrchestrator(ctx: Context, orgId: string, id: string) {
  const row = await ctx.db.$transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    const deleted = await tx.orchestratorInstance.findFirst({ where: { id, org_id: orgId, is_deleted: true } });
    if (!deleted) return requireInstance(tx, orgId, id);
    await requireRoomForInstance(tx, orgId);
    const config_hash = hashFor(await settingLayers(tx, orgId), deleted);
    return tx.orchestratorInstance.update({
      where: { id, is_deleted: true },
      data: { is_deleted: false, config_hash },
    });
  });
  return toOrchestrator(row);
}
