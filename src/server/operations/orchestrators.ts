import "server-only";
import { z } from "zod";
import {
  createOrchestratorInput,
  listOrchestratorsQuery,
  orchestratorListSchema,
  orchestratorParams,
  orchestratorSchema,
  updateOrchestratorInput,
} from "@/lib/schemas/orchestrators";
import { includeDeletedQuery } from "@/lib/schemas/common";
import { orgIdParams } from "@/lib/schemas/organizations";
import { effectiveSettingsSchema } from "@/lib/schemas/settings";
import {
  createOrchestrator,
  deleteOrchestrator,
  getOrchestrator,
  listOrchestrators,
  restoreOrchestrator,
  updateOrchestrator,
} from "@/server/services/orchestrators/service";
import { effectiveInstanceSettings } from "@/server/services/settings/service";
import { defineOperation } from "./operation";

// An organization's orchestrator instances (tier 4). framework_type and mode are fixed at creation.

const tag = "Orchestrator instances";
const BASE = "/api/v1/organizations/{org_id}/orchestrators";
const ONE = `${BASE}/{orchestrator_id}`;
const read = { permission: "svc:orchestrators:read", org: "org_id" } as const;
const write = { permission: "svc:orchestrators:write", org: "org_id" } as const;

export const orchestratorOperations = {
  list: defineOperation({
    id: "listOrchestrators", method: "GET", path: BASE, tag, summary: "List an organization's orchestrator instances",
    access: { ...read, list: true }, params: orgIdParams, query: listOrchestratorsQuery, response: orchestratorListSchema,
    handler: ({ actor, params, query }) => listOrchestrators(actor, params.org_id, query),
  }),
  create: defineOperation({
    id: "createOrchestrator", method: "POST", path: BASE, tag, summary: "Create an orchestrator instance",
    description: "`framework_type` and `mode` are fixed afterwards. Config keys must be overridable by the tiers above (403 `not_overridable`). The tier's `max_orchestrators` applies (403 `quota_exceeded`).",
    access: write,
    params: orgIdParams, body: createOrchestratorInput, response: orchestratorSchema, status: 201, created: (instance) => instance.id,
    errors: ["not_found", "quota_exceeded", "not_overridable"],
    handler: ({ actor, params, body }) => createOrchestrator(actor, params.org_id, body),
  }),
  get: defineOperation({
    id: "getOrchestrator", method: "GET", path: ONE, tag, summary: "Read an orchestrator instance",
    access: read, params: orchestratorParams, query: includeDeletedQuery, response: orchestratorSchema, errors: ["not_found"],
    handler: ({ actor, params, query }) => getOrchestrator(actor, params.org_id, params.orchestrator_id, { includeDeleted: query.include_deleted }),
  }),
  effectiveConfig: defineOperation({
    id: "effectiveInstanceConfig", method: "GET", path: `${ONE}/effective-config`, tag: "Settings", summary: "Effective config of an orchestrator instance",
    description: "Every key's value and the tier it came from (`platform`, `organization` or `instance`), and the instance's `config_hash`.",
    access: read, params: orchestratorParams, response: effectiveSettingsSchema.extend({ config_hash: z.string().nullable() }), errors: ["not_found"],
    handler: ({ actor, params }) => effectiveInstanceSettings(actor, params.org_id, params.orchestrator_id),
  }),
  update: defineOperation({
    id: "updateOrchestrator", method: "PATCH", path: ONE, tag, summary: "Update an orchestrator instance",
    description: "Changing `framework_type` or `mode` answers 400 `immutable_field`.",
    access: write,
    params: orchestratorParams, body: updateOrchestratorInput, response: orchestratorSchema, errors: ["not_found", "immutable_field", "not_overridable"],
    handler: ({ actor, params, body }) => updateOrchestrator(actor, params.org_id, params.orchestrator_id, body),
  }),
  delete: defineOperation({
    id: "deleteOrchestrator", method: "DELETE", path: ONE, tag, summary: "Delete an orchestrator instance (soft)",
    description: "Refused with 409 `conflict` while a central point refers to it.",
    access: { permission: "svc:orchestrators:delete", org: "org_id" },
    params: orchestratorParams, response: orchestratorSchema, errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => deleteOrchestrator(actor, params.org_id, params.orchestrator_id),
  }),
  restore: defineOperation({
    id: "restoreOrchestrator", method: "POST", path: `${ONE}/restore`, tag, summary: "Restore a deleted orchestrator instance",
    description: "Within the tier's `max_orchestrators` (403 `quota_exceeded`).",
    access: { ...write, sysAdmin: true }, params: orchestratorParams, response: orchestratorSchema, errors: ["not_found", "quota_exceeded"],
    handler: ({ actor, params }) => restoreOrchestrator(actor, params.org_id, params.orchestrator_id),
  }),
};
