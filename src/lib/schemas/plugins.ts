import { z } from "zod";
import { LOGO_MAX_BYTES } from "@/lib/plugins";
import {
  booleanQuery,
  DESCRIPTION_LENGTH,
  EXAMPLE_TIMESTAMPS,
  id,
  LENGTH,
  list,
  listOf,
  pageQuery,
  text,
  timestamps,
} from "./common";

// Plugins: system-wide (source system) or an organization's own (source org), one row per version.

export const PID = /^[a-z][a-z0-9]*(\.[a-z0-9][a-z0-9_-]*)+$/;
// Semantic Versioning 2.0.0, the official grammar.
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export { LOGO_MAX_BYTES } from "@/lib/plugins";
/** A logo as base64 (4 characters for every 3 bytes), with room for a data: URL's header. */
const LOGO_LENGTH = Math.ceil((LOGO_MAX_BYTES * 4) / 3) + 100;
const MAX_CAPABILITIES = 100;
/** A capability tag. */
const capability = text(100).trim().min(1);
/** The largest settings_schema accepted, as JSON text. */
export const SETTINGS_SCHEMA_MAX_BYTES = 32 * 1024;
/** The largest settings value the console's check takes: far more than any form holds. */
export const CHECKED_SETTINGS_MAX_BYTES = 256 * 1024;

const jsonObject = z.record(text(), z.json());
/** `schema`, taking at most `bytes` of JSON. */
const capped = <T extends z.ZodType>(schema: T, bytes: number) =>
  schema.refine((value) => new TextEncoder().encode(JSON.stringify(value)).length <= bytes, {
    message: `must be at most ${bytes / 1024} KiB of JSON`,
  });

export const registerPluginInput = z
  .strictObject({
    pid: text().min(1, "must not be empty").regex(PID, "must be reverse-domain notation, like com.example.search"),
    version: text(LENGTH.SHORT).min(1, "must not be empty").regex(SEMVER, "must be a semantic version, like 1.4.0"),
    name: text().trim().min(1),
    description: text(DESCRIPTION_LENGTH).nullable().optional(),
    tag: text(100).trim().nullable().optional(),
    capabilities: list(capability, MAX_CAPABILITIES).default([]),
    is_specialized: z.boolean().default(false),
    is_scoped: z.boolean().default(false),
    stateless: z.boolean().default(true),
    enabled: z.boolean().default(true),
    logo_image: text(LOGO_LENGTH)
      .nullable()
      .optional()
      .describe("Base64 PNG, JPEG, GIF or WebP image (optionally a data: URL), at most 256 KiB."),
    s3_path: text(LENGTH.LONG).nullable().optional(),
    default_settings: jsonObject.default({}),
    settings_schema: jsonObject
      .default({})
      .describe("A JSON Schema (draft 2020-12); default_settings must satisfy it."),
  })
  .meta({
    examples: [
      {
        pid: "com.example.search",
        version: "1.4.0",
        name: "Web search",
        description: "Searches the web and cites its sources.",
        tag: "search",
        capabilities: ["search"],
        default_settings: { max_results: 5 },
        settings_schema: {
          type: "object",
          properties: { max_results: { type: "integer", format: "int32", minimum: 1, maximum: 20 } },
        },
      },
    ],
  });
export type RegisterPluginInput = z.output<typeof registerPluginInput>;

/** The console's live check: settings against a settings schema, as registering checks default_settings. */
export const checkSettingsInput = z.strictObject({
  settings_schema: capped(jsonObject, SETTINGS_SCHEMA_MAX_BYTES),
  settings: capped(z.json(), CHECKED_SETTINGS_MAX_BYTES),
});
export type CheckSettingsInput = z.output<typeof checkSettingsInput>;

/** Its answer: whether the schema is acceptable, and every problem (of the schema, else of the settings). */
export const settingsCheckSchema = z.object({
  schema_valid: z.boolean(),
  problems: z.array(z.object({ path: z.string(), message: z.string() })),
});
export type SettingsCheck = z.input<typeof settingsCheckSchema>;

export const updatePluginInput = z.strictObject({ enabled: z.boolean() }).meta({ examples: [{ enabled: false }] });

export const listPluginsQuery = pageQuery.extend({
  pid: text().optional().describe("All versions of one plugin."),
  latest: booleanQuery.optional().describe("Only the latest version of each plugin."),
  enabled: booleanQuery.optional(),
});
export type ListPluginsQuery = z.output<typeof listPluginsQuery>;

export const pluginParams = z.strictObject({ plugin_id: id });
export const orgPluginParams = z.strictObject({ org_id: id, plugin_id: id });

export const pluginSchema = z
  .object({
    id: z.uuid(),
    source: z.enum(["system", "org"]),
    org_id: z.uuid().nullable(),
    pid: text(),
    version: text(LENGTH.SHORT),
    name: text(),
    description: text(DESCRIPTION_LENGTH).nullable(),
    tag: text(100).nullable(),
    is_latest: z.boolean(),
    s3_path: text(LENGTH.LONG).nullable(),
    logo_image: text(LOGO_LENGTH).nullable(),
    default_settings: jsonObject,
    settings_schema: jsonObject,
    capabilities: list(text(100), MAX_CAPABILITIES),
    is_specialized: z.boolean(),
    is_scoped: z.boolean(),
    stateless: z.boolean(),
    enabled: z.boolean(),
    ...timestamps,
  })
  .meta({
    id: "Plugin",
    examples: [
      {
        id: "0193a5c7-0b1c-7d2e-9f3a-4b5c6d7e8f90",
        source: "system",
        org_id: null,
        pid: "com.example.search",
        version: "1.4.0",
        name: "Web search",
        description: "Searches the web and cites its sources.",
        tag: "search",
        is_latest: true,
        s3_path: null,
        logo_image: null,
        default_settings: { max_results: 5 },
        settings_schema: {
          type: "object",
          properties: { max_results: { type: "integer", format: "int32", minimum: 1, maximum: 20 } },
        },
        capabilities: ["search"],
        is_specialized: false,
        is_scoped: false,
        stateless: true,
        enabled: true,
        ...EXAMPLE_TIMESTAMPS,
      },
    ],
  });
export type Plugin = z.input<typeof pluginSchema>;
export const pluginListSchema = listOf(pluginSchema);
