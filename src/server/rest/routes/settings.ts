import { z } from "zod";
import { orgIdParams } from "@/lib/schemas/organizations";
import { orchestratorParams } from "@/lib/schemas/orchestrators";
import {
  effectiveSettingsSchema,
  orgSettingParams,
  orgSettingSchema,
  platformSettingSchema,
  putOrgSettingInput,
  putPlatformSettingInput,
  settingKeyParams,
} from "@/lib/schemas/settings";
import {
  deleteOrgSetting,
  deletePlatformSetting,
  effectiveInstanceSettings,
  effectiveOrgSettings,
  getPlatformSetting,
  listOrgSettings,
  listPlatformSettings,
  putOrgSetting,
  putPlatformSetting,
} from "@/server/services/settings/service";
import { defineRoute } from "../route";

const tag = "Settings";
const PLATFORM = "/api/v1/platform-settings";
const ORG = "/api/v1/organizations/{org_id}/settings";

export const settingRoutes = [
  defineRoute({
    method: "GET", path: PLATFORM, operationId: "listPlatformSettings", tag,
    summary: "List platform settings (tier 2)",
    access: { permission: "svc:system:settings:read" },
    response: z.object({ data: z.array(platformSettingSchema) }),
    handler: ({ actor }) => listPlatformSettings(actor),
  }),
  defineRoute({
    method: "GET", path: `${PLATFORM}/{key}`, operationId: "getPlatformSetting", tag,
    summary: "Read a platform setting",
    access: { permission: "svc:system:settings:read" },
    params: settingKeyParams,
    response: platformSettingSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getPlatformSetting(actor, params.key),
  }),
  defineRoute({
    method: "PUT", path: `${PLATFORM}/{key}`, operationId: "putPlatformSetting", tag,
    summary: "Create or replace a platform setting",
    description: "The value must match `value_type`. `overridable: false` stops organizations from overriding it. Tier quotas live under `tier.<name>` (category `tier`); categories `tier` and `policy` are not inherited by organizations.",
    access: { permission: "svc:system:settings:write" },
    params: settingKeyParams,
    body: putPlatformSettingInput,
    response: platformSettingSchema,
    handler: ({ actor, params, body }) => putPlatformSetting(actor, params.key, body),
  }),
  defineRoute({
    method: "DELETE", path: `${PLATFORM}/{key}`, operationId: "deletePlatformSetting", tag,
    summary: "Delete a platform setting (soft)",
    access: { permission: "svc:system:settings:write" },
    params: settingKeyParams,
    response: platformSettingSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => deletePlatformSetting(actor, params.key),
  }),
  defineRoute({
    method: "GET", path: ORG, operationId: "listOrgSettings", tag, list: true,
    summary: "List an organization's settings (tier 3)",
    access: { permission: "svc:org:settings:read", org: "org_id" },
    params: orgIdParams,
    response: z.object({ data: z.array(orgSettingSchema) }),
    handler: ({ actor, params }) => listOrgSettings(actor, params.org_id),
  }),
  defineRoute({
    method: "PUT", path: `${ORG}/{key}`, operationId: "putOrgSetting", tag,
    summary: "Set an organization's value for a key",
    description: "Refused with 403 `not_overridable` where the platform setting of that key is not overridable.",
    access: { permission: "svc:org:settings:write", org: "org_id" },
    params: orgSettingParams,
    body: putOrgSettingInput,
    response: orgSettingSchema,
    errors: ["not_overridable", "not_found"],
    handler: ({ actor, params, body }) => putOrgSetting(actor, params.org_id, params.key, body),
  }),
  defineRoute({
    method: "DELETE", path: `${ORG}/{key}`, operationId: "deleteOrgSetting", tag,
    summary: "Remove an organization's value for a key",
    access: { permission: "svc:org:settings:write", org: "org_id" },
    params: orgSettingParams,
    response: orgSettingSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => deleteOrgSetting(actor, params.org_id, params.key),
  }),
  defineRoute({
    method: "GET", path: "/api/v1/organizations/{org_id}/effective-settings", operationId: "effectiveOrgSettings", tag,
    summary: "Effective settings of an organization",
    description: "Every key's value and the tier it came from (`platform` or `organization`).",
    access: { permission: "svc:org:settings:read", org: "org_id" },
    params: orgIdParams,
    response: effectiveSettingsSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => effectiveOrgSettings(actor, params.org_id),
  }),
  defineRoute({
    method: "GET", path: "/api/v1/organizations/{org_id}/orchestrators/{orchestrator_id}/effective-config", operationId: "effectiveInstanceConfig", tag,
    summary: "Effective config of an orchestrator instance",
    description: "Every key's value and the tier it came from (`platform`, `organization` or `instance`), and the instance's `config_hash`.",
    access: { permission: "svc:orchestrators:read", org: "org_id" },
    params: orchestratorParams,
    response: effectiveSettingsSchema.extend({ config_hash: z.string().nullable() }),
    errors: ["not_found"],
    handler: ({ actor, params }) => effectiveInstanceSettings(actor, params.org_id, params.orchestrator_id),
  }),
];
