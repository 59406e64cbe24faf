import "server-only";
import { DOMAIN_POLICIES, DOMAIN_POLICY_SETTING, DOMAIN_ROLE_SETTING } from "@/lib/domains";
import { isPermission } from "@/lib/permissions";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import type { Prisma } from "@/generated/prisma/client";
import { configHash } from "@/server/crypto/canonical-json";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed } from "@/server/errors";
import { requireHeldByActor } from "@/server/auth/escalation";
import { requireOrganization } from "@/server/services/organizations/service";
import {
  MAX_SETTINGS_PER_TIER,
  type EffectiveSetting,
  type orgSettingSchema,
  type platformSettingSchema,
  type PutOrgSettingInput,
  type ListSettingsQuery,
  type PutPlatformSettingInput,
  type ValueType,
} from "@/lib/schemas/settings";
import { REQUIRE_MFA_SETTING } from "@/lib/schemas/two-factor";
import { DEFAULT_RATE_LIMIT_SETTING } from "@/server/limits/api-limits";
import { withAccessChange } from "@/server/services/access-changes";
import { byKey, paginate } from "@/server/services/pagination";
import { requireKeyPolicyValue, requireStricterOrgPolicy } from "@/server/services/api-keys/policy";
import { isKeyPolicySetting } from "@/lib/key-policies";
import { requireBelowPlatformLimit } from "@/server/services/quotas";
import { PLATFORM_ONLY_CATEGORIES } from "@/lib/settings";

// Settings in tiers: an orchestrator instance's config (tier 4) over its
// organization's settings (tier 3) over platform settings (tier 2). A tier may override a key of
// the tier above only where that key is overridable (a key absent above is free). Platform
// settings of the categories `tier` (quotas) and `policy` govern the platform itself and are not
// inherited by organizations.

type Tx = Pick<DataLayer, "platformSetting" | "organizationSetting" | "orchestratorInstance" | "organization">;
type JsonObject = Record<string, Prisma.JsonValue>;
type Value = EffectiveSetting["value"];

function checkValueType(type: string | null | undefined, value: unknown, path = "value"): void {
  const ok: Record<ValueType, (v: unknown) => boolean> = {
    string: (v) => typeof v === "string",
    integer: (v) => Number.isSafeInteger(v),
    float: (v) => typeof v === "number" && Number.isFinite(v),
    boolean: (v) => typeof v === "boolean",
    json: () => true,
  };
  const check = type ? ok[type as ValueType] : undefined;
  if (check && !check(value)) throw validationFailed([{ path, message: `must be a ${type}` }]);
}

type PlatformSettingView = z.output<typeof platformSettingSchema>;
type OrgSettingView = z.output<typeof orgSettingSchema>;

// The JSON value typed as the schema declares it; the rest is the row.
const toPlatformView = (row: Prisma.PlatformSettingGetPayload<object>): PlatformSettingView => ({
  ...row,
  value: row.value as PlatformSettingView["value"],
});

const toOrgView = (row: Prisma.OrganizationSettingGetPayload<object>): OrgSettingView => ({
  ...row,
  value: row.value as OrgSettingView["value"],
});

// ---- Effective values -------------------------------------------------------------------------

interface Layers {
  platform: Prisma.PlatformSettingGetPayload<object>[];
  org: Prisma.OrganizationSettingGetPayload<object>[];
}

export async function settingLayers(db: Tx, orgId: string): Promise<Layers> {
  const [platform, org] = await Promise.all([
    db.platformSetting.findMany({
      where: { OR: [{ category: null }, { category: { notIn: [...PLATFORM_ONLY_CATEGORIES] } }] },
    }),
    db.organizationSetting.findMany({ where: { org_id: orgId } }),
  ]);
  return { platform, org };
}

/** Every key's effective value and the tier it came from, in key order. */
function resolveEffective(layers: Layers, instanceConfig?: JsonObject): EffectiveSetting[] {
  const result = new Map<string, EffectiveSetting>();
  for (const s of layers.platform)
    result.set(s.key, { key: s.key, value: s.value as Value, source: "platform", overridable: s.overridable });
  for (const s of layers.org) {
    const above = result.get(s.key);
    if (above && !above.overridable) continue;
    result.set(s.key, { key: s.key, value: s.value as Value, source: "organization", overridable: s.overridable });
  }
  for (const [key, value] of Object.entries(instanceConfig ?? {})) {
    const above = result.get(key);
    if (above && !above.overridable) continue;
    result.set(key, { key, value: value as Value, source: "instance", overridable: false });
  }
  return [...result.values()].sort((a, b) => (a.key < b.key ? -1 : 1));
}

const asObject = (settings: EffectiveSetting[]) => Object.fromEntries(settings.map((s) => [s.key, s.value]));

/**
 * Refuses an instance config whose keys the tiers above do not let it override, or whose values
 * do not have the platform setting's value_type.
 */
export function checkInstanceConfig(layers: Layers, config: JsonObject): void {
  for (const setting of layers.platform) {
    if (setting.key in config) checkValueType(setting.value_type, config[setting.key], `config.${setting.key}`);
  }
  const above = resolveEffective(layers);
  const locked = Object.keys(config).filter((key) => above.find((s) => s.key === key && !s.overridable));
  if (locked.length > 0) {
    throw new DomainError("not_overridable", `Not overridable by an instance: ${locked.join(", ")}.`, {
      errors: locked.map((key) => ({ path: `config.${key}`, message: "is set by a tier above and not overridable" })),
    });
  }
}

/** What makes two pooled instances behave alike: they share a config_hash only when all of it matches. */
export interface HashedInstance {
  framework_type: string;
  mode: string;
  whoami: string | null;
  plugin_settings: unknown;
  config: unknown;
}

/**
 * config_hash of one instance: the first 16 hex of SHA-256 over the canonical JSON of its framework,
 * mode, whoami, plugin settings and effective config.
 */
export const hashFor = (l: Layers, instance: HashedInstance) =>
  configHash({
    framework_type: instance.framework_type,
    mode: instance.mode,
    whoami: instance.whoami,
    plugin_settings: instance.plugin_settings,
    config: asObject(resolveEffective(l, instance.config as JsonObject)),
  });

/** Recomputes config_hash of every live instance of an organization (or of all organizations). */
async function refreshConfigHashes(db: Tx, orgId?: string): Promise<void> {
  const instances = await db.orchestratorInstance.findMany({
    where: orgId ? { org_id: orgId } : {},
    select: {
      id: true,
      org_id: true,
      framework_type: true,
      mode: true,
      whoami: true,
      plugin_settings: true,
      config: true,
      config_hash: true,
    },
  });
  const byOrg = new Map<string, Layers>();
  for (const instance of instances) {
    let l = byOrg.get(instance.org_id);
    if (!l) {
      l = await settingLayers(db, instance.org_id);
      byOrg.set(instance.org_id, l);
    }
    const hash = hashFor(l, instance);
    if (hash !== instance.config_hash) {
      await db.orchestratorInstance.update({ where: { id: instance.id }, data: { config_hash: hash } });
    }
  }
}

export async function effectiveOrgSettings(ctx: Context, orgId: string) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return { data: resolveEffective(await settingLayers(db, orgId)) };
}

export async function effectiveInstanceSettings(ctx: Context, orgId: string, instanceId: string) {
  const { db } = ctx;
  const instance = await db.orchestratorInstance.findFirst({ where: { id: instanceId, org_id: orgId } });
  if (!instance) throw notFound("orchestrator instance");
  return {
    data: resolveEffective(await settingLayers(db, orgId), instance.config as JsonObject),
    config_hash: instance.config_hash,
  };
}

/** Refuses a new setting past MAX_SETTINGS_PER_TIER live ones in its tier (an organization's, or the platform's). */
const requireRoomForSetting = (db: Pick<DataLayer, "$executeRaw">, count: () => Promise<number>, orgId?: string) =>
  requireBelowPlatformLimit(db, { name: "settings", max: MAX_SETTINGS_PER_TIER, owner: orgId }, count);

// ---- Platform settings (tier 2) ---------------------------------------------------------------

export async function listPlatformSettings(ctx: Context, query: ListSettingsQuery) {
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  return paginate(
    query,
    byKey,
    (w) => db.platformSetting.findMany({ where: w.after, orderBy: w.orderBy, take: w.take }),
    toPlatformView,
  );
}

export async function getPlatformSetting(ctx: Context, key: string, options: { includeDeleted?: boolean } = {}) {
  const row = await (options.includeDeleted === true ? ctx.includingDeleted() : ctx.db).platformSetting.findUnique({
    where: { key },
  });
  if (!row) throw notFound("setting");
  return toPlatformView(row);
}

/**
 * Requiring two-factor of sys_admins changes what their sessions may do, and the default rate limit
 * what keys without one of their own are held to: every session and key is re-read.
 */
const accessChangeOf = (key: string) =>
  key === REQUIRE_MFA_SETTING || key === DEFAULT_RATE_LIMIT_SETTING ? { all: true as const } : null;

/** Creates or replaces a platform setting; instances' config hashes follow in the same transaction. */
export async function putPlatformSetting(ctx: Context, key: string, input: PutPlatformSettingInput) {
  checkValueType(input.value_type, input.value);
  if (isKeyPolicySetting(key)) requireKeyPolicyValue(key, input.value);
  const { db } = ctx;
  const row = await withAccessChange(db, async (tx) => {
    await requireRoomForSetting(tx, () =>
      tx.platformSetting.count({ where: { is_deleted: false, key: { not: key } } }),
    );
    const data = { ...input, value: input.value as Prisma.InputJsonValue, is_deleted: false };
    const saved = await tx.platformSetting.upsert({ where: { key }, create: { key, ...data }, update: data });
    await refreshConfigHashes(tx);
    return { result: saved, event: accessChangeOf(key) };
  });
  return toPlatformView(row);
}

export async function deletePlatformSetting(ctx: Context, key: string) {
  const { db } = ctx;
  const row = await withAccessChange(db, async (tx) => {
    const existing = await tx.platformSetting.findUnique({ where: { key } });
    if (!existing) throw notFound("setting");
    const deleted = await tx.platformSetting.update({ where: { key }, data: { is_deleted: true } });
    await refreshConfigHashes(tx);
    return { result: deleted, event: accessChangeOf(key) };
  });
  return toPlatformView(row);
}

/** Brings a deleted platform setting back; instances' config hashes follow. A live one answers as it is. */
export async function restorePlatformSetting(ctx: Context, key: string) {
  const row = await withAccessChange(ctx.db, async (tx) => {
    const deleted = await tx.platformSetting.findFirst({ where: { key, is_deleted: true } });
    if (!deleted) {
      const live = await tx.platformSetting.findUnique({ where: { key } });
      if (!live) throw notFound("setting");
      return { result: live, event: null };
    }
    await requireRoomForSetting(tx, () => tx.platformSetting.count({ where: { is_deleted: false } }));
    const restored = await tx.platformSetting.update({ where: { key, is_deleted: true }, data: { is_deleted: false } });
    await refreshConfigHashes(tx);
    return { result: restored, event: accessChangeOf(key) };
  });
  return toPlatformView(row);
}

// ---- Organization settings (tier 3) -----------------------------------------------------------

export async function listOrgSettings(ctx: Context, orgId: string, query: ListSettingsQuery) {
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  await requireOrganization(db, orgId);
  return paginate(
    query,
    byKey,
    (w) => db.organizationSetting.findMany({ where: { org_id: orgId, ...w.after }, orderBy: w.orderBy, take: w.take }),
    toOrgView,
  );
}

export async function getOrgSetting(
  ctx: Context,
  orgId: string,
  key: string,
  options: { includeDeleted?: boolean } = {},
) {
  const db = options.includeDeleted === true ? ctx.includingDeleted() : ctx.db;
  await requireOrganization(db, orgId);
  const row = await db.organizationSetting.findUnique({ where: { org_id_key: { org_id: orgId, key } } });
  if (!row) throw notFound("setting");
  return toOrgView(row);
}

/** Refuses an organization value for a key the platform keeps to itself or marks not overridable. */
async function requireOverridable(tx: Tx, key: string, value: unknown): Promise<void> {
  if (isKeyPolicySetting(key)) return requireStricterOrgPolicy(tx, key, value);
  const platform = await tx.platformSetting.findUnique({ where: { key } });
  if (!platform) return;
  if ((PLATFORM_ONLY_CATEGORIES as readonly string[]).includes(platform.category ?? "")) {
    throw new DomainError("not_overridable", `${key} is a platform-only setting.`, {
      errors: [{ path: "key", message: "is platform-only" }],
    });
  }
  if (!platform.overridable) {
    throw new DomainError("not_overridable", `The platform setting ${key} is not overridable.`, {
      errors: [{ path: "key", message: "is set by the platform and not overridable" }],
    });
  }
  checkValueType(platform.value_type, value);
}

/**
 * The joining-by-domain settings take only what they can act on: a policy by name, an org role's id.
 * The role is one whose permissions the actor holds in the organization: whoever joins by domain gets
 * it, so choosing it is passing it on.
 */
async function checkMembershipSetting(
  ctx: Context,
  tx: Pick<DataLayer, "role">,
  orgId: string,
  key: string,
  value: unknown,
): Promise<void> {
  if (key === DOMAIN_POLICY_SETTING && !(DOMAIN_POLICIES as readonly unknown[]).includes(value))
    throw validationFailed([{ path: "value", message: `must be one of ${DOMAIN_POLICIES.join(", ")}` }]);
  if (key === DOMAIN_ROLE_SETTING) {
    const role =
      typeof value === "string" && /^[0-9a-f-]{36}$/i.test(value)
        ? await tx.role.findFirst({
            where: { id: value, scope: "org", is_deleted: false },
            select: { permissions: { select: { permission: true } } },
          })
        : null;
    if (!role) throw validationFailed([{ path: "value", message: "must be the id of an organization role" }]);
    requireHeldByActor(ctx.actor, role.permissions.map((p) => p.permission).filter(isPermission), orgId);
  }
}

/** Sets an organization's value for a key, where the platform tier lets organizations override it. */
export async function putOrgSetting(ctx: Context, orgId: string, key: string, input: PutOrgSettingInput) {
  const { db } = ctx;
  const row = await db.$transaction(async (tx) => {
    await requireOrganization(tx, orgId);
    await checkMembershipSetting(ctx, tx, orgId, key, input.value);
    await requireOverridable(tx, key, input.value);
    await requireRoomForSetting(
      tx,
      () => tx.organizationSetting.count({ where: { org_id: orgId, is_deleted: false, key: { not: key } } }),
      orgId,
    );
    const data = { value: input.value as Prisma.InputJsonValue, overridable: input.overridable, is_deleted: false };
    const saved = await tx.organizationSetting.upsert({
      where: { org_id_key: { org_id: orgId, key } },
      create: { org_id: orgId, key, ...data },
      update: data,
    });
    await refreshConfigHashes(tx, orgId);
    return saved;
  });
  return toOrgView(row);
}

export async function deleteOrgSetting(ctx: Context, orgId: string, key: string) {
  const { db } = ctx;
  const row = await db.$transaction(async (tx) => {
    await requireOrganization(tx, orgId);
    const existing = await tx.organizationSetting.findUnique({ where: { org_id_key: { org_id: orgId, key } } });
    if (!existing) throw notFound("setting");
    const deleted = await tx.organizationSetting.update({ where: { id: existing.id }, data: { is_deleted: true } });
    await refreshConfigHashes(tx, orgId);
    return deleted;
  });
  return toOrgView(row);
}

/** Brings an organization's deleted value for a key back, where the platform still lets it override. */
export async function restoreOrgSetting(ctx: Context, orgId: string, key: string) {
  const row = await ctx.db.$transaction(async (tx) => {
    await requireOrganization(tx, orgId);
    const deleted = await tx.organizationSetting.findFirst({ where: { org_id: orgId, key, is_deleted: true } });
    if (!deleted) {
      const live = await tx.organizationSetting.findUnique({ where: { org_id_key: { org_id: orgId, key } } });
      if (!live) throw notFound("setting");
      return live;
    }
    await requireOverridable(tx, key, deleted.value);
    await requireRoomForSetting(
      tx,
      () => tx.organizationSetting.count({ where: { org_id: orgId, is_deleted: false } }),
      orgId,
    );
    const restored = await tx.organizationSetting.update({
      where: { id: deleted.id, is_deleted: true },
      data: { is_deleted: false },
    });
    await refreshConfigHashes(tx, orgId);
    return restored;
  });
  return toOrgView(row);
}
