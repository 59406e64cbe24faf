import { z } from "zod";
import { EXAMPLE_LIVE_RECORD, id, includeDeleted, listOf, pageQuery, softDeletedRecord, timestamp } from "./common";

export const FRAMEWORK_TYPES = ["langgraph", "openai_agents", "google_adk"] as const;
export const ORCHESTRATOR_MODES = ["supervisor", "coordinator", "handoff", "grounded"] as const;
export const ORCHESTRATOR_STATUSES = ["active", "suspended", "inactive"] as const;
export const ORCHESTRATOR_TIERS = ["demand", "hot"] as const;

const jsonObject = z.record(z.string(), z.json());

export const createOrchestratorInput = z
  .strictObject({
    name: z.string().trim().min(1).max(255),
    framework_type: z.enum(FRAMEWORK_TYPES),
    mode: z.enum(ORCHESTRATOR_MODES),
    config: jsonObject
      .default({})
      .describe("Tier 4 settings: keys override organization and platform settings where those allow it."),
    whoami: z.string().max(20_000).nullable().optional(),
    plugin_settings: jsonObject.default({}),
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
    name: z.string().trim().min(1).max(255).optional(),
    framework_type: z.string().optional().describe("Immutable: a different value answers 400 immutable_field."),
    mode: z.string().optional().describe("Immutable: a different value answers 400 immutable_field."),
    config: jsonObject.optional(),
    whoami: z.string().max(20_000).nullable().optional(),
    plugin_settings: jsonObject.optional(),
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
  q: z.string().trim().min(1).max(255).optional(),
  include_deleted: includeDeleted,
});
export type ListOrchestratorsQuery = z.output<typeof listOrchestratorsQuery>;

export const orchestratorParams = z.strictObject({ org_id: id, orchestrator_id: id });

export const orchestratorSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    name: z.string(),
    framework_type: z.string(),
    mode: z.string(),
    status: z.string(),
    config: jsonObject,
    tier: z.string(),
    whoami: z.string().nullable(),
    plugin_settings: jsonObject,
    config_hash: z.string().nullable(),
    last_accessed_at: timestamp.nullable(),
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
export type Orchestrator = z.infer<typeof orchestratorSchema>;
export const orchestratorListSchema = listOf(orchestratorSchema);
