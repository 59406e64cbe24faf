import {
  createOrchestratorInput,
  listOrchestratorsQuery,
  orchestratorListSchema,
  orchestratorParams,
  orchestratorSchema,
  updateOrchestratorInput,
} from "@/lib/schemas/orchestrators";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  createOrchestrator,
  deleteOrchestrator,
  getOrchestrator,
  listOrchestrators,
  updateOrchestrator,
} from "@/server/services/orchestrators/service";
import { defineRoute, RouteResult } from "../route";

const tag = "Orchestrator instances";
const BASE = "/api/v1/organizations/{org_id}/orchestrators";
const ONE = `${BASE}/{orchestrator_id}`;

export const orchestratorRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listOrchestrators", tag, list: true,
    summary: "List an organization's orchestrator instances",
    access: { permission: "svc:orchestrators:read", org: "org_id" },
    params: orgIdParams,
    query: listOrchestratorsQuery,
    response: orchestratorListSchema,
    handler: ({ actor, params, query }) => listOrchestrators(actor, params.org_id, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createOrchestrator", tag,
    summary: "Create an orchestrator instance",
    description: "`framework_type` and `mode` are fixed afterwards. Config keys must be overridable by the tiers above (403 `not_overridable`). The tier's `max_orchestrators` applies (403 `quota_exceeded`).",
    access: { permission: "svc:orchestrators:write", org: "org_id" },
    params: orgIdParams,
    body: createOrchestratorInput,
    response: orchestratorSchema,
    status: 201,
    errors: ["not_found", "quota_exceeded", "not_overridable"],
    handler: async ({ actor, params, body }) => {
      const instance = await createOrchestrator(actor, params.org_id, body);
      return new RouteResult(instance, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/orchestrators/${instance.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getOrchestrator", tag,
    summary: "Read an orchestrator instance",
    access: { permission: "svc:orchestrators:read", org: "org_id" },
    params: orchestratorParams,
    response: orchestratorSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getOrchestrator(actor, params.org_id, params.orchestrator_id),
  }),
  defineRoute({
    method: "PATCH", path: ONE, operationId: "updateOrchestrator", tag,
    summary: "Update an orchestrator instance",
    description: "Changing `framework_type` or `mode` answers 400 `immutable_field`.",
    access: { permission: "svc:orchestrators:write", org: "org_id" },
    params: orchestratorParams,
    body: updateOrchestratorInput,
    response: orchestratorSchema,
    errors: ["not_found", "immutable_field", "not_overridable"],
    handler: ({ actor, params, body }) => updateOrchestrator(actor, params.org_id, params.orchestrator_id, body),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "deleteOrchestrator", tag,
    summary: "Delete an orchestrator instance (soft)",
    description: "Refused with 409 `conflict` while a central point refers to it.",
    access: { permission: "svc:orchestrators:delete", org: "org_id" },
    params: orchestratorParams,
    response: orchestratorSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => deleteOrchestrator(actor, params.org_id, params.orchestrator_id),
  }),
];
