import "server-only";
import { auditEventSchema, listAuditEventsQuery, orgAuditParams } from "@/lib/schemas/audit";
import { listOf } from "@/lib/schemas/common";
import { listAuditEvents } from "@/server/services/audit/read";
import { defineOperation } from "./operation";

// The audit trail: the platform's whole, and one organization's (its admins see only theirs).

const tag = "Audit trail";
const FILTERS =
  "Newest first. Filter by `action` (an operation id, or `signIn`), `actor_user_id` or `actor_username`, `target_id`, and a time range (`since` inclusive, `until` exclusive).";

export const auditEventOperations = {
  list: defineOperation({
    id: "listAuditEvents",
    method: "GET",
    path: "/api/v1/audit-events",
    tag,
    summary: "List audit events",
    description: `Every change through any door, sign-ins and refused authorizations. ${FILTERS}`,
    access: { permission: "svc:system:audit:read" },
    query: listAuditEventsQuery,
    response: listOf(auditEventSchema),
    handler: ({ query, ...ctx }) => listAuditEvents(ctx, query),
  }),
  listInOrganization: defineOperation({
    id: "listOrgAuditEvents",
    method: "GET",
    path: "/api/v1/organizations/{org_id}/audit-events",
    tag,
    summary: "List an organization's audit events",
    description: `The events of changes in this organization and to it. ${FILTERS}`,
    access: { permission: "svc:org:audit:read", org: "org_id", list: true },
    params: orgAuditParams,
    query: listAuditEventsQuery,
    response: listOf(auditEventSchema),
    handler: ({ params, query, ...ctx }) => listAuditEvents(ctx, query, params.org_id),
  }),
};
