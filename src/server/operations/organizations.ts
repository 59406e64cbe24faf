import "server-only";
import { z } from "zod";
import { booleanQuery } from "@/lib/schemas/common";
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
import { defineOperation } from "./operation";

// Organizations, the tenant boundary. Tier and status change only through the subscription
// operation (svc:system:orgs:write), so an organization's own admins cannot upgrade themselves.

const BASE = "/api/v1/organizations";
const ONE = `${BASE}/{org_id}`;
const tag = "Organizations";

export const organizationOperations = {
  list: defineOperation({
    id: "listOrganizations", method: "GET", path: BASE, tag, summary: "List organizations",
    description: "Every organization for holders of `svc:system:orgs:read`; otherwise those where the caller holds `svc:org:read`. Search with `q`, filter by `status` and `tier`.",
    access: "authenticated", query: listOrganizationsQuery, response: organizationListSchema,
    handler: ({ actor, query }) => listOrganizations(actor, query),
  }),
  create: defineOperation({
    id: "createOrganization", method: "POST", path: BASE, tag, summary: "Create an organization",
    access: { permission: "svc:system:orgs:write" },
    body: createOrganizationInput, response: organizationSchema, status: 201, created: (org) => org.id, errors: ["conflict"],
    handler: ({ actor, body }) => createOrganization(actor, body),
  }),
  get: defineOperation({
    id: "getOrganization", method: "GET", path: ONE, tag, summary: "Read an organization",
    description: "sys_admins may pass `include_deleted=true` to read a deleted one.",
    access: { permission: "svc:org:read", org: "org_id" },
    params: orgIdParams, query: z.strictObject({ include_deleted: booleanQuery.optional() }), response: organizationSchema, errors: ["not_found"],
    handler: ({ actor, params, query }) => getOrganization(actor, params.org_id, { includeDeleted: query.include_deleted }),
  }),
  update: defineOperation({
    id: "updateOrganization", method: "PATCH", path: ONE, tag, summary: "Update an organization's profile",
    access: { permission: "svc:org:write", org: "org_id" },
    params: orgIdParams, body: updateOrganizationInput, response: organizationSchema, errors: ["not_found", "conflict"],
    handler: ({ actor, params, body }) => updateOrganization(actor, params.org_id, body),
  }),
  updateSubscription: defineOperation({
    id: "updateSubscription", method: "PUT", path: `${ONE}/subscription`, tag, summary: "Change an organization's subscription tier or status",
    access: { permission: "svc:system:orgs:write" },
    params: orgIdParams, body: updateSubscriptionInput, response: organizationSchema, errors: ["not_found"],
    handler: ({ actor, params, body }) => updateOrganization(actor, params.org_id, body),
  }),
  delete: defineOperation({
    id: "deleteOrganization", method: "DELETE", path: ONE, tag, summary: "Delete an organization (soft)",
    description: "Everything in it disappears with it, and its members' API keys lose it at once.",
    access: { permission: "svc:system:orgs:delete" },
    params: orgIdParams, response: organizationSchema, errors: ["not_found"],
    handler: ({ actor, params }) => deleteOrganization(actor, params.org_id),
  }),
  restore: defineOperation({
    id: "restoreOrganization", method: "POST", path: `${ONE}/restore`, tag, summary: "Restore a deleted organization",
    access: { permission: "svc:system:orgs:write", sysAdmin: true },
    params: orgIdParams, response: organizationSchema, errors: ["not_found", "conflict"],
    handler: ({ actor, params }) => restoreOrganization(actor, params.org_id),
  }),
};
