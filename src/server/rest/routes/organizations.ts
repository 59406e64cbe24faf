import { z } from "zod";
import {
  createOrganizationInput,
  listOrganizationsQuery,
  organizationListSchema,
  organizationSchema,
  orgIdParams,
  updateOrganizationInput,
  updateSubscriptionInput,
} from "@/lib/schemas/organizations";
import {
  createOrganization,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  restoreOrganization,
  updateOrganization,
} from "@/server/services/organizations/service";
import { defineRoute, RouteResult } from "../route";

const BASE = "/api/v1/organizations";
const ONE = `${BASE}/{org_id}`;
const tag = "Organizations";

export const organizationRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listOrganizations", tag,
    summary: "List organizations",
    description: "Every organization for holders of `svc:system:orgs:read`; otherwise those where the caller holds `svc:org:read`. Search with `q`, filter by `status` and `tier`.",
    access: "authenticated",
    query: listOrganizationsQuery,
    response: organizationListSchema,
    handler: ({ actor, query }) => listOrganizations(actor, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createOrganization", tag,
    summary: "Create an organization",
    access: { permission: "svc:system:orgs:write" },
    body: createOrganizationInput,
    response: organizationSchema,
    status: 201,
    errors: ["conflict"],
    handler: async ({ actor, body }) => {
      const org = await createOrganization(actor, body);
      return new RouteResult(org, { status: 201, headers: { Location: `${BASE}/${org.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getOrganization", tag,
    summary: "Read an organization",
    description: "sys_admins may pass `include_deleted=true` to read a deleted one.",
    access: { permission: "svc:org:read", org: "org_id" },
    params: orgIdParams,
    query: z.strictObject({ include_deleted: z.enum(["true", "false"]).transform((v) => v === "true").optional() }),
    response: organizationSchema,
    errors: ["not_found"],
    handler: ({ actor, params, query }) => getOrganization(actor, params.org_id, { includeDeleted: query.include_deleted }),
  }),
  defineRoute({
    method: "PATCH", path: ONE, operationId: "updateOrganization", tag,
    summary: "Update an organization's profile",
    access: { permission: "svc:org:write", org: "org_id" },
    params: orgIdParams,
    body: updateOrganizationInput,
    response: organizationSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params, body }) => updateOrganization(actor, params.org_id, body),
  }),
  defineRoute({
    method: "PUT", path: `${ONE}/subscription`, operationId: "updateSubscription", tag,
    summary: "Change an organization's subscription tier or status",
    access: { permission: "svc:system:orgs:write" },
    params: orgIdParams,
    body: updateSubscriptionInput,
    response: organizationSchema,
    errors: ["not_found"],
    handler: ({ actor, params, body }) => updateOrganization(actor, params.org_id, body),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "deleteOrganization", tag,
    summary: "Delete an organization (soft)",
    access: { permission: "svc:system:orgs:delete" },
    params: orgIdParams,
    response: organizationSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => deleteOrganization(actor, params.org_id),
  }),
  defineRoute({
    method: "POST", path: `${ONE}/restore`, operationId: "restoreOrganization", tag,
    summary: "Restore a deleted organization",
    access: { permission: "svc:system:orgs:write", sysAdmin: true },
    params: orgIdParams,
    response: organizationSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => restoreOrganization(actor, params.org_id),
  }),
];
