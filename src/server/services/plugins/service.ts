import "server-only";
import type { Context } from "@/server/db/context";
import semver from "semver";
import type { Prisma } from "@/generated/prisma/client";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound, validationFailed, type FieldError } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import type { z } from "zod";
import type { ListPluginsQuery, pluginSchema, RegisterPluginInput } from "@/lib/schemas/plugins";
import { CheckBudget, checkSettings, validationProblems } from "./json-schema";
import { normalizeLogo } from "./logo";

// The plugin catalog. A version is registered once per source (and organization); is_latest marks
// exactly the highest semantic version of each pid there, kept right under concurrent
// registrations by a transaction-scoped advisory lock per (source, organization, pid).

/** Where a plugin lives: the system catalog, or one organization's own. */
export type PluginScope = { source: "system" } | { source: "org"; orgId: string };

type Row = Prisma.PluginGetPayload<object>;
type Plugin = z.output<typeof pluginSchema>;

// A mapper: the JSON columns are typed here, and capabilities kept to its strings.
const toPlugin = (row: Row): Plugin => ({
  ...row,
  source: row.source as Plugin["source"],
  default_settings: row.default_settings as Plugin["default_settings"],
  settings_schema: row.settings_schema as Plugin["settings_schema"],
  capabilities: Array.isArray(row.capabilities)
    ? row.capabilities.filter((c): c is string => typeof c === "string")
    : [],
});

const scopeWhere = (scope: PluginScope): Prisma.PluginWhereInput =>
  scope.source === "system" ? { source: "system", org_id: null } : { source: "org", org_id: scope.orgId };

/** Recomputes is_latest for one pid in one scope: the highest version, and only it. */
async function markLatest(tx: Pick<DataLayer, "plugin">, scope: PluginScope, pid: string) {
  const versions = await tx.plugin.findMany({
    where: { ...scopeWhere(scope), pid },
    select: { id: true, version: true, is_latest: true },
  });
  const highest = versions.reduce((best, v) => (!best || semver.gt(v.version, best.version) ? v : best), versions[0]);
  if (!highest || (highest.is_latest && versions.filter((v) => v.is_latest).length === 1)) return;
  await tx.plugin.updateMany({
    where: { ...scopeWhere(scope), pid, is_latest: true, NOT: { id: highest.id } },
    data: { is_latest: false },
  });
  await tx.plugin.update({ where: { id: highest.id }, data: { is_latest: true } });
}

/**
 * Where a plugin's bundle may live in object storage: a relative key under the organization's own
 * prefix (`orgs/<org_id>/`), or under `system/` for system plugins, with no empty, `.` or `..`
 * segment that could step out of it.
 */
function s3PathProblem(path: string, scope: PluginScope): string | undefined {
  const prefix = scope.source === "org" ? `orgs/${scope.orgId}/` : "system/";
  if (!path.startsWith(prefix)) return `must start with ${prefix}`;
  const segments = path.slice(prefix.length).split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return "must not have empty, . or .. segments";
  if (!/^[A-Za-z0-9!_.*'()/-]+$/.test(path)) return "may hold only letters, digits, / and ! - _ . * ' ( )";
  return undefined;
}

export async function registerPlugin(ctx: Context, scope: PluginScope, input: RegisterPluginInput): Promise<Plugin> {
  const { problems } = checkSettings(input.settings_schema, input.default_settings, "default_settings");
  const s3Problem = input.s3_path == null ? undefined : s3PathProblem(input.s3_path, scope);
  if (s3Problem) problems.push({ path: "s3_path", message: s3Problem });
  let logo: string | null = null;
  if (input.logo_image) {
    const normalized = normalizeLogo(input.logo_image);
    if ("problem" in normalized) problems.push({ path: "logo_image", message: normalized.problem });
    else logo = normalized.dataUrl;
  }
  if (problems.length > 0) throw validationFailed(problems);

  const { db } = ctx;
  const row = await db.$transaction(async (tx) => {
    if (scope.source === "org") await requireOrganization(tx, scope.orgId);
    const lockKey = `plugins:${scope.source}:${scope.source === "org" ? scope.orgId : ""}:${input.pid}`;
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`;
    const created = await tx.plugin.create({
      data: {
        ...input,
        logo_image: logo,
        source: scope.source,
        org_id: scope.source === "org" ? scope.orgId : null,
        is_latest: false,
        default_settings: input.default_settings as Prisma.InputJsonValue,
        settings_schema: input.settings_schema as Prisma.InputJsonValue,
      },
    });
    await markLatest(tx, scope, input.pid);
    return tx.plugin.findUniqueOrThrow({ where: { id: created.id } });
  });
  return toPlugin(row);
}

/**
 * The system catalog, or what an organization sees: system plugins plus its own, optionally one
 * pid's versions, latest versions only, or enabled ones.
 */
export async function listPlugins(ctx: Context, view: PluginScope, query: ListPluginsQuery) {
  const { db } = ctx;
  if (view.source === "org") await requireOrganization(db, view.orgId);
  const visible: Prisma.PluginWhereInput =
    view.source === "system" ? scopeWhere(view) : { OR: [scopeWhere({ source: "system" }), scopeWhere(view)] };
  const filters: Prisma.PluginWhereInput[] = [
    visible,
    query.pid ? { pid: query.pid } : {},
    query.latest ? { is_latest: true } : {},
    query.enabled === undefined ? {} : { enabled: query.enabled },
  ];
  return paginate(
    query,
    newestFirst,
    (w) => db.plugin.findMany({ where: { AND: [...filters, w.after] }, orderBy: w.orderBy, take: w.take }),
    toPlugin,
  );
}

async function requireVisible(
  db: Pick<DataLayer, "plugin">,
  view: PluginScope,
  id: string,
  options: { ownOnly?: boolean } = {},
) {
  const scopes =
    view.source === "org" && !options.ownOnly
      ? [scopeWhere({ source: "system" }), scopeWhere(view)]
      : [scopeWhere(view)];
  const row = await db.plugin.findFirst({ where: { id, OR: scopes } });
  if (!row) throw notFound("plugin");
  return row;
}

export async function getPlugin(ctx: Context, view: PluginScope, id: string) {
  return toPlugin(await requireVisible(ctx.db, view, id));
}

/** Enables or disables a version; an organization changes only its own plugins. */
export async function setPluginEnabled(ctx: Context, scope: PluginScope, id: string, enabled: boolean) {
  const { db } = ctx;
  await requireVisible(db, scope, id, { ownOnly: true });
  return toPlugin(await db.plugin.update({ where: { id }, data: { enabled } }));
}

/**
 * Checks an orchestrator's plugin use: every pid in `active_plugins` and in `plugin_settings` is a
 * plugin the organization sees and has enabled (its latest version), its settings satisfy that
 * version's settings_schema, and grounded mode takes only plugins with is_scoped.
 */
export async function checkPluginUse(
  db: Pick<DataLayer, "plugin">,
  orgId: string,
  mode: string,
  config: Record<string, unknown>,
  pluginSettings: Record<string, unknown>,
): Promise<void> {
  const active = Array.isArray(config.active_plugins) ? config.active_plugins : [];
  if (config.active_plugins !== undefined && !active.every((p) => typeof p === "string")) {
    throw validationFailed([{ path: "config.active_plugins", message: "must be a list of plugin ids" }]);
  }
  const pids = [...new Set([...(active as string[]), ...Object.keys(pluginSettings)])];
  if (pids.length === 0) return;
  const latest = await db.plugin.findMany({
    where: {
      pid: { in: pids },
      is_latest: true,
      enabled: true,
      OR: [scopeWhere({ source: "system" }), scopeWhere({ source: "org", orgId })],
    },
  });
  // An organization's own plugin of a pid takes precedence over a system plugin of the same pid.
  const byPid = new Map<string, Row>();
  for (const row of latest) if (!byPid.has(row.pid) || row.source === "org") byPid.set(row.pid, row);
  const problems: FieldError[] = [];
  const budget = new CheckBudget();
  for (const pid of pids) {
    const plugin = byPid.get(pid);
    const where = pluginSettings[pid] !== undefined ? `plugin_settings.${pid}` : "config.active_plugins";
    if (!plugin) {
      problems.push({ path: where, message: `${pid} is not an enabled plugin of this organization's catalog` });
      continue;
    }
    if (mode === "grounded" && !plugin.is_scoped)
      problems.push({ path: where, message: `${pid} has no scoped agents, which grounded mode needs` });
    if (pluginSettings[pid] !== undefined) {
      problems.push(
        ...validationProblems(plugin.settings_schema as object, pluginSettings[pid], `plugin_settings.${pid}`, budget),
      );
    }
  }
  if (problems.length > 0)
    throw new DomainError("validation_failed", "The plugin settings are not valid.", { errors: problems });
}
