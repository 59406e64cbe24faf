import { z } from "zod";
import { FRAMEWORK_TYPES, ORCHESTRATOR_MODES, ORCHESTRATOR_STATUSES, ORCHESTRATOR_TIERS } from "@/lib/orchestrators";
import {
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  LENGTH,
  listOf,
  pageQuery,
  searchTerm,
  softDeletedRecord,
  text,
  moment,
} from "./common";
import { configObject } from "./settings";

export { FRAMEWORK_TYPES, ORCHESTRATOR_MODES, ORCHESTRATOR_STATUSES, ORCHESTRATOR_TIERS } from "@/lib/orchestrators";

/** Who the assistant is, for its system prompts: a text column, held to less than free text. */
const WHOAMI_LENGTH = 20_000;
/** Plugin settings by plugin id (reverse-domain notation, a column of 255). */
const pluginSettings = z.record(text(), z.json());

export const createOrchestratorInput = z
  .strictObject({
    name: text().trim().min(1),
    framework_type: z.enum(FRAMEWORK_TYPES),
    mode: z.enum(ORCHESTRATOR_MODES),
    config: configObject
      .default({})
      .describe("Tier 4 settings: keys override organization and platform settings where those allow it."),
    whoami: text(WHOAMI_LENGTH).nullable().optional(),
    plugin_settings: pluginSettings.default({}),
    tier: z.enum(ORCHESTRATOR_TIERS).default("demand"),
    status: z.enum(ORCHESTRATOR_STATUSES).default("active"),
  })
  .meta({
    examples: [
      {
        name: "support-assistant",
        framework_type: "langgraph",
        mode: "supervisor",
        config: { "assistant.locale": "en-GB" },
        whoami: "You are Acme's support assistant.",
      },
    ],
  });
export type CreateOrchestratorInput = z.output<typeof createOrchestratorInput>;

export const updateOrchestratorInput = z
  .strictObject({
    name: text().trim().min(1).optional(),
    framework_type: text(LENGTH.SHORT).optional().describe("Immutable: a different value answers 400 immutable_field."),
    mode: text(LENGTH.SHORT).optional().describe("Immutable: a different value answers 400 immutable_field."),
    config: configObject.optional(),
    whoami: text(WHOAMI_LENGTH).nullable().optional(),
    plugin_settings: pluginSettings.optional(),
    tier: z.enum(ORCHESTRATOR_TIERS).optional(),
    status: z.enum(ORCHESTRATOR_STATUSES).optional(),
  })
  .meta({ examples: [{ tier: "hot" }] });
export type UpdateOrchestratorInput = z.output<typeof updateOrchestratorInput>;

export const listOrchestratorsQuery = pageQuery.extend({
  status: z.enum(ORCHESTRATOR_STATUSES).optional(),
  tier: z.enum(ORCHESTRATOR_TIERS).optional(),
  framework_type: z.enum(FRAMEWORK_TYPES).optional(),
  mode: z.enum(ORCHESTRATOR_MODES).optional(),
  q: searchTerm("Matches the name."),
  include_deleted: includeDeleted,
});
export type ListOrchestratorsQuery = z.output<typeof listOrchestratorsQuery>;

export const orchestratorParams = z.strictObject({ org_id: id, orchestrator_id: id });

export const orchestratorSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    name: text(),
    framework_type: text(LENGTH.SHORT),
    mode: text(LENGTH.SHORT),
    status: text(LENGTH.SHORT),
    config: configObject,
    tier: text(20),
    whoami: text(WHOAMI_LENGTH).nullable(),
    plugin_settings: pluginSettings,
    config_hash: text(64).nullable(),
    last_accessed_at: moment.nullable(),
    ...softDeletedRecord,
  })
  .meta({
    id: "OrchestratorInstance",
    examples: [
      {
        id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        name: "support-assistant",
        framework_type: "langgraph",
        mode: "supervisor",
        status: "active",
        config: { "assistant.locale": "en-GB" },
        tier: "demand",
        whoami: "You are Acme's support assistant.",
        plugin_settings: {},
        config_hash: "3f9a1c7e5b2d8f40",
        last_accessed_at: "2026-02-03T14:05:12.000Z",
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type Orchestrator = z.input<typeof orchestratorSchema>;
export const orchestratorListSchema = listOf(orchestratorSchema);
