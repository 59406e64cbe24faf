import "server-only";
import {
  createOrchestratorInput,
  listOrchestratorsQuery,
  orchestratorListSchema,
  orchestratorParams,
  orchestratorSchema,
  updateOrchestratorInput,
} from "@/lib/schemas/orchestrators";
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
import { defineOperation, inOrganization } from "./operation";
import { softDeletable } from "./soft-delete";

// An organization's orchestrator instances (tier 4). framework_type and mode are fixed at creation.

const tag = "Orchestrator instances";
const { BASE, ONE, read, write } = inOrganization("orchestrators", "orchestrator_id", {
  read: "svc:orchestrators:read",
  write: "svc:orchestrators:write",
});

export const orchestratorOperations = {
  list: defineOperation({
    id: "listOrchestrators",
    method: "GET",
    path: BASE,
    tag,
    summary: "List an organization's orchestrator instances",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listOrchestratorsQuery,
    response: orchestratorListSchema,
    handler: ({ params, query, ...ctx }) => listOrchestrators(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createOrchestrator",
    method: "POST",
    path: BASE,
    tag,
    summary: "Create an orchestrator instance",
    description:
      "`framework_type` and `mode` are fixed afterwards. Config keys must be overridable by the tiers above (403 `not_overridable`). The tier's `max_orchestrators` applies (403 `quota_exceeded`).",
    access: write,
    params: orgIdParams,
    body: createOrchestratorInput,
    response: orchestratorSchema,
    created: (instance) => instance.id,
    errors: ["not_found", "quota_exceeded", "not_overridable"],
    handler: ({ params, body, ...ctx }) => createOrchestrator(ctx, params.org_id, body),
  }),
  effectiveConfig: defineOperation({
    id: "effectiveInstanceConfig",
    method: "GET",
    path: `${ONE}/effective-config`,
    tag: "Settings",
    summary: "Effective config of an orchestrator instance",
    description:
      "Every key's value and the tier it came from (`platform`, `organization` or `instance`), and the instance's `config_hash`.",
    access: read,
    params: orchestratorParams,
    response: effectiveSettingsSchema.extend({ config_hash: orchestratorSchema.shape.config_hash }),
    errors: ["not_found"],
    handler: ({ params, ...ctx }) => effectiveInstanceSettings(ctx, params.org_id, params.orchestrator_id),
  }),
  update: defineOperation({
    id: "updateOrchestrator",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Update an orchestrator instance",
    description: "Changing `framework_type` or `mode` answers 400 `immutable_field`.",
    access: write,
    params: orchestratorParams,
    body: updateOrchestratorInput,
    response: orchestratorSchema,
    errors: ["not_found", "immutable_field", "not_overridable"],
    handler: ({ params, body, ...ctx }) => updateOrchestrator(ctx, params.org_id, params.orchestrator_id, body),
  }),
  ...softDeletable({
    name: "Orchestrator",
    noun: "an orchestrator instance",
    path: ONE,
    tag,
    params: orchestratorParams,
    response: orchestratorSchema,
    access: { read, delete: { permission: "svc:orchestrators:delete", org: "org_id" }, restore: write },
    notes: {
      delete: "Refused with 409 `conflict` while a central point refers to it.",
      restore: "Within the tier's `max_orchestrators` (403 `quota_exceeded`).",
    },
    errors: { delete: ["conflict"], restore: ["quota_exceeded"] },
    get: (ctx, p, options) => getOrchestrator(ctx, p.org_id, p.orchestrator_id, options),
    delete: (ctx, p) => deleteOrchestrator(ctx, p.org_id, p.orchestrator_id),
    restore: (ctx, p) => restoreOrchestrator(ctx, p.org_id, p.orchestrator_id),
  }),
};
