import "server-only";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  effectiveSettingsSchema,
  listSettingsQuery,
  MAX_SETTINGS_PER_TIER,
  orgSettingListSchema,
  orgSettingParams,
  orgSettingSchema,
  platformSettingListSchema,
  platformSettingSchema,
  putOrgSettingInput,
  putPlatformSettingInput,
  settingKeyParams,
} from "@/lib/schemas/settings";
import {
  deleteOrgSetting,
  deletePlatformSetting,
  effectiveOrgSettings,
  getOrgSetting,
  getPlatformSetting,
  listOrgSettings,
  listPlatformSettings,
  putOrgSetting,
  putPlatformSetting,
  restoreOrgSetting,
  restorePlatformSetting,
} from "@/server/services/settings/service";
import { defineOperation } from "./operation";
import { softDeletable } from "./soft-delete";

// Settings in tiers: the platform's (tier 2, including the tier quotas) and each organization's
// (tier 3), and an organization's effective settings.

const tag = "Settings";
const PLATFORM = "/api/v1/platform-settings";
const ORG = "/api/v1/organizations/{org_id}/settings";
const systemRead = { permission: "svc:system:settings:read" } as const;
const systemWrite = { permission: "svc:system:settings:write" } as const;
const orgRead = { permission: "svc:org:settings:read", org: "org_id" } as const;
const orgWrite = { permission: "svc:org:settings:write", org: "org_id" } as const;

export const platformSettingOperations = {
  list: defineOperation({
    id: "listPlatformSettings",
    method: "GET",
    path: PLATFORM,
    tag,
    summary: "List platform settings (tier 2)",
    access: systemRead,
    query: listSettingsQuery,
    response: platformSettingListSchema,
    handler: ({ query, ...ctx }) => listPlatformSettings(ctx, query),
  }),
  put: defineOperation({
    id: "putPlatformSetting",
    method: "PUT",
    path: `${PLATFORM}/{key}`,
    tag,
    summary: "Create or replace a platform setting",
    description: `The value must match \`value_type\`. \`overridable: false\` stops organizations from overriding it. Tier quotas live under \`tier.<name>\` (category \`tier\`); categories \`tier\` and \`policy\` are not inherited by organizations. The platform holds at most ${MAX_SETTINGS_PER_TIER.toLocaleString("en")} settings (403 \`quota_exceeded\`). A key policy (\`api_keys.*\`) takes a value of its own type (400 otherwise).`,
    access: systemWrite,
    params: settingKeyParams,
    body: putPlatformSettingInput,
    response: platformSettingSchema,
    errors: ["quota_exceeded"],
    handler: ({ params, body, ...ctx }) => putPlatformSetting(ctx, params.key, body),
  }),
  ...softDeletable({
    name: "PlatformSetting",
    noun: "a platform setting",
    path: `${PLATFORM}/{key}`,
    tag,
    params: settingKeyParams,
    response: platformSettingSchema,
    access: { read: systemRead, delete: systemWrite, restore: systemWrite },
    errors: { restore: ["quota_exceeded"] },
    get: (ctx, p, options) => getPlatformSetting(ctx, p.key, options),
    delete: (ctx, p) => deletePlatformSetting(ctx, p.key),
    restore: (ctx, p) => restorePlatformSetting(ctx, p.key),
  }),
};

export const orgSettingOperations = {
  list: defineOperation({
    id: "listOrgSettings",
    method: "GET",
    path: ORG,
    tag,
    summary: "List an organization's settings (tier 3)",
    access: { ...orgRead, list: true },
    params: orgIdParams,
    query: listSettingsQuery,
    response: orgSettingListSchema,
    handler: ({ params, query, ...ctx }) => listOrgSettings(ctx, params.org_id, query),
  }),
  put: defineOperation({
    id: "putOrgSetting",
    method: "PUT",
    path: `${ORG}/{key}`,
    tag,
    summary: "Set an organization's value for a key",
    description: `Refused with 403 \`not_overridable\` where the platform setting of that key is not overridable. An organization holds at most ${MAX_SETTINGS_PER_TIER.toLocaleString("en")} settings (403 \`quota_exceeded\`). A key policy (\`api_keys.*\`) may be set whatever the platform marks, but only stricter than the platform's value (422 \`policy_violation\` naming the \`setting\`).`,
    access: orgWrite,
    params: orgSettingParams,
    body: putOrgSettingInput,
    response: orgSettingSchema,
    errors: ["not_overridable", "quota_exceeded", "not_found", "policy_violation"],
    handler: ({ params, body, ...ctx }) => putOrgSetting(ctx, params.org_id, params.key, body),
  }),
  ...softDeletable({
    name: "OrgSetting",
    noun: "an organization's value for a key",
    path: `${ORG}/{key}`,
    tag,
    params: orgSettingParams,
    response: orgSettingSchema,
    access: { read: orgRead, delete: orgWrite, restore: orgWrite },
    notes: {
      restore: "Refused with 403 `not_overridable` where the platform no longer lets organizations override the key.",
    },
    errors: { restore: ["not_overridable", "quota_exceeded", "policy_violation"] },
    get: (ctx, p, options) => getOrgSetting(ctx, p.org_id, p.key, options),
    delete: (ctx, p) => deleteOrgSetting(ctx, p.org_id, p.key),
    restore: (ctx, p) => restoreOrgSetting(ctx, p.org_id, p.key),
  }),
  effective: defineOperation({
    id: "effectiveOrgSettings",
    method: "GET",
    path: "/api/v1/organizations/{org_id}/effective-settings",
    tag,
    summary: "Effective settings of an organization",
    description: "Every key's value and the tier it came from (`platform` or `organization`).",
    access: orgRead,
    params: orgIdParams,
    response: effectiveSettingsSchema,
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => effectiveOrgSettings(ctx, params.org_id),
  }),
};
