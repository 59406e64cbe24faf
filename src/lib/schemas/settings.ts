import { z } from "zod";
import { VALUE_TYPES } from "@/lib/settings";
import { DESCRIPTION_LENGTH, id, includeDeleted, LENGTH, list, listOf, pageQuery, moment, text } from "./common";

// Settings in tiers: platform (2) over organization (3) over orchestrator instance config (4).

export { SETTING_CATEGORIES, VALUE_TYPES, type ValueType } from "@/lib/settings";

/**
 * The most settings each tier holds: the platform's, each organization's, and each orchestrator
 * instance's config. The effective settings (all three tiers merged) are at most three times this.
 */
export const MAX_SETTINGS_PER_TIER = 1_000;

export const settingKey = text()
  .min(1)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, "must be dotted lower_snake_case, like telemetry.enabled")
  .meta({ examples: ["api_keys.max_lifetime_days"] });

/** An orchestrator instance's config (tier 4): setting keys and their values. */
export const configObject = z
  .record(text(), z.json())
  .refine(
    (config) => Object.keys(config).length <= MAX_SETTINGS_PER_TIER,
    `must hold at most ${MAX_SETTINGS_PER_TIER} keys`,
  )
  .meta({ maxProperties: MAX_SETTINGS_PER_TIER });

export const settingKeyParams = z.strictObject({ key: settingKey });
export const listSettingsQuery = pageQuery.extend({ include_deleted: includeDeleted });
export type ListSettingsQuery = z.output<typeof listSettingsQuery>;
export const orgSettingParams = z.strictObject({ org_id: id, key: settingKey });

export const putPlatformSettingInput = z
  .strictObject({
    value: z.json(),
    value_type: z.enum(VALUE_TYPES),
    description: text(DESCRIPTION_LENGTH).nullable().optional(),
    overridable: z.boolean().default(false),
    category: text(LENGTH.SHORT).nullable().optional(),
  })
  .meta({
    examples: [
      {
        value: 365,
        value_type: "integer",
        description: "Longest lifetime of a new API key, in days.",
        overridable: false,
        category: "policy",
      },
    ],
  });
export type PutPlatformSettingInput = z.output<typeof putPlatformSettingInput>;

export const putOrgSettingInput = z
  .strictObject({
    value: z.json(),
    overridable: z.boolean().default(false).describe("Whether orchestrator instances may override it."),
  })
  .meta({ examples: [{ value: "en-GB", overridable: true }] });
export type PutOrgSettingInput = z.output<typeof putOrgSettingInput>;

export const platformSettingSchema = z
  .object({
    key: text(),
    value: z.json(),
    value_type: text(LENGTH.SHORT),
    description: text(DESCRIPTION_LENGTH).nullable(),
    overridable: z.boolean(),
    category: text(LENGTH.SHORT).nullable(),
    is_deleted: z.boolean(),
    updated_at: moment,
  })
  .meta({
    id: "PlatformSetting",
    examples: [
      {
        key: "api_keys.max_lifetime_days",
        value: 365,
        value_type: "integer",
        description: "Longest lifetime of a new API key, in days.",
        overridable: false,
        category: "policy",
        is_deleted: false,
        updated_at: "2026-01-15T09:30:00.000Z",
      },
    ],
  });
export type PlatformSettingView = z.input<typeof platformSettingSchema>;
export const platformSettingListSchema = listOf(platformSettingSchema);

export const orgSettingSchema = z
  .object({
    key: text(),
    value: z.json(),
    overridable: z.boolean(),
    is_deleted: z.boolean(),
    updated_at: moment,
  })
  .meta({
    id: "OrgSetting",
    examples: [
      {
        key: "assistant.locale",
        value: "en-GB",
        overridable: true,
        is_deleted: false,
        updated_at: "2026-01-15T09:30:00.000Z",
      },
    ],
  });
export type OrgSettingView = z.input<typeof orgSettingSchema>;
export const orgSettingListSchema = listOf(orgSettingSchema);

const TIER_SOURCES = ["platform", "organization", "instance"] as const;

const effectiveSettingSchema = z
  .object({
    key: text(),
    value: z.json(),
    source: z.enum(TIER_SOURCES).describe("The tier the value comes from."),
    overridable: z.boolean().describe("Whether the tier below may override it."),
  })
  .meta({
    id: "EffectiveSetting",
    examples: [{ key: "assistant.locale", value: "en-GB", source: "organization", overridable: true }],
  });
export const effectiveSettingsSchema = z.object({
  data: list(effectiveSettingSchema, TIER_SOURCES.length * MAX_SETTINGS_PER_TIER),
});
export type EffectiveSetting = z.input<typeof effectiveSettingSchema>;
