import "server-only";
import { DEFAULT_RETENTION_DAYS, RETENTION_SETTING } from "@/server/services/audit/retention";
import { BUILT_IN_ROLES } from "@/lib/permissions";
import { generatePassword, hashPassword } from "@/server/auth/passwords";
import type { BaseClient } from "@/server/db/client";
import { dataLayer, type DataLayer } from "@/server/db/data-layer";
import { BUILT_IN_DEFAULT_RATE_LIMIT, DEFAULT_RATE_LIMIT_SETTING } from "@/server/limits/api-limits";
import { REQUIRE_MFA_SETTING } from "@/lib/schemas/two-factor";
import { MODEL_CATALOG } from "./model-catalog";

// Idempotent seed: running it again changes nothing. It adds what is missing and never overwrites
// what an operator has edited (tier quotas, the default key rate limit, model prices), except the
// built-in roles' permission sets, which follow the catalog in code.

const SEED_ACTOR = "system:seed";
const SEED_LOCK = 727_073_691;

/** Tier quotas, editable afterwards as platform settings. */
export const TIER_SETTINGS = {
  "tier.free": { max_orchestrators: 2, max_central_points: 0, max_members: 5 },
  "tier.pro": { max_orchestrators: 20, max_central_points: 10, max_members: 100 },
  "tier.enterprise": { max_orchestrators: 500, max_central_points: 200, max_members: 10_000 },
} as const;

export interface AdminOptions {
  username: string;
  email?: string;
  /** Used as given; when absent a random password is generated and returned once. */
  password?: string;
}

export interface SeedResult {
  /** Set when this run created the first sys_admin; `password` only when it was generated. */
  createdAdmin?: { username: string; password?: string };
}

export async function seed(client: BaseClient, admin: AdminOptions): Promise<SeedResult> {
  return dataLayer(SEED_ACTOR, { client, includeDeleted: true }).$transaction(
    async (db) => {
      // Two processes starting at once seed one after the other.
      await db.$executeRaw`SELECT pg_advisory_xact_lock(${SEED_LOCK})`;

      // createMany + skipDuplicates inserts what is missing and leaves existing rows untouched
      // (an upsert would rewrite them and move updated_at).
      await db.role.createMany({
        data: BUILT_IN_ROLES.map((r) => ({
          name: r.name,
          scope: r.scope,
          description: r.description,
          is_built_in: true,
        })),
        skipDuplicates: true,
      });
      for (const role of BUILT_IN_ROLES) {
        await db.role.updateMany({
          where: {
            name: role.name,
            OR: [{ scope: { not: role.scope } }, { is_built_in: false }, { is_deleted: true }],
          },
          data: { scope: role.scope, is_built_in: true, is_deleted: false },
        });
        const row = await db.role.findUniqueOrThrow({ where: { name: role.name } });
        await db.rolePermission.deleteMany({
          where: { role_id: row.id, permission: { notIn: [...role.permissions] } },
        });
        await db.rolePermission.createMany({
          data: role.permissions.map((permission) => ({ role_id: row.id, permission })),
          skipDuplicates: true,
        });
      }

      await db.platformSetting.createMany({
        data: [
          ...Object.entries(TIER_SETTINGS).map(([key, value]) => ({
            key,
            value,
            value_type: "json",
            category: "tier",
            overridable: false,
            description: `Quotas of the ${key.slice("tier.".length)} subscription tier.`,
          })),
          {
            key: DEFAULT_RATE_LIMIT_SETTING,
            value: { ...BUILT_IN_DEFAULT_RATE_LIMIT },
            value_type: "json",
            category: "policy",
            overridable: false,
            description:
              "Rate limit of API keys that have none of their own: at most `requests` requests per `window_seconds` seconds.",
          },
          {
            key: REQUIRE_MFA_SETTING,
            value: false,
            value_type: "boolean",
            category: "policy",
            overridable: false,
            description:
              "When true, a sys_admin without two-factor authentication is sent to set it up right after the password step, and can do nothing else until then.",
          },
          {
            key: RETENTION_SETTING,
            value: DEFAULT_RETENTION_DAYS,
            value_type: "integer",
            category: "policy",
            overridable: false,
            description: "Days audit events are kept; older ones are removed by the app's maintenance job.",
          },
        ],
        skipDuplicates: true,
      });

      const existing = await db.providerModelConfig.findMany({ select: { provider: true, model_id: true } });
      const known = new Set(existing.map((m) => `${m.provider}/${m.model_id}`));
      await db.providerModelConfig.createMany({
        data: MODEL_CATALOG.filter((m) => !known.has(`${m.provider}/${m.model_id}`)).map((m) => ({ ...m })),
      });

      return { createdAdmin: await ensureFirstAdmin(db, admin) };
    },
    { timeout: 60_000 },
  );
}

type AdminTables = Pick<DataLayer, "user" | "userRole" | "role">;

async function ensureFirstAdmin(db: AdminTables, admin: AdminOptions) {
  const sysAdmins = await db.userRole.count({
    where: { org_id: null, role: { name: "sys_admin" }, user: { is_deleted: false } },
  });
  if (sysAdmins > 0) return undefined;
  const password = admin.password ?? generatePassword();
  await createSysAdmin(db, { ...admin, password });
  return { username: admin.username, password: admin.password ? undefined : password };
}

/** Creates a user holding the built-in sys_admin role. The username must be free. */
export async function createSysAdmin(
  db: AdminTables,
  admin: Required<Pick<AdminOptions, "username" | "password">> & Pick<AdminOptions, "email">,
) {
  const role = await db.role.findUniqueOrThrow({ where: { name: "sys_admin" } });
  const user = await db.user.create({
    data: {
      username: admin.username,
      email: admin.email?.toLowerCase(),
      display_name: "Administrator",
      password_hash: await hashPassword(admin.password),
    },
  });
  await db.userRole.create({ data: { user_id: user.id, role_id: role.id } });
  return user;
}
