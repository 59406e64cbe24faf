import "server-only";
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
import { softDeletable } from "./soft-delete";

// Organizations, the tenant boundary. Tier and status change only through the subscription
// operation (svc:system:orgs:write), so an organization's own admins cannot upgrade themselves.

const BASE = "/api/v1/organizations";
const ONE = `${BASE}/{org_id}`;
const tag = "Organizations";

export const organizationOperations = {
  list: defineOperation({
    id: "listOrganizations",
    method: "GET",
    path: BASE,
    tag,
    summary: "List organizations",
    description:
      "Every organization for holders of `svc:system:orgs:read`; otherwise those where the caller holds `svc:org:read`. Search with `q`, filter by `status` and `tier`.",
    access: "authenticated",
    query: listOrganizationsQuery,
    response: organizationListSchema,
    handler: ({ query, ...ctx }) => listOrganizations(ctx, query),
  }),
  create: defineOperation({
    id: "createOrganization",
    method: "POST",
    path: BASE,
    tag,
    summary: "Create an organization",
    access: { permission: "svc:system:orgs:write" },
    body: createOrganizationInput,
    response: organizationSchema,
    created: (org) => org.id,
    errors: ["conflict"],
    handler: ({ body, ...ctx }) => createOrganization(ctx, body),
  }),
  update: defineOperation({
    id: "updateOrganization",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Update an organization's profile",
    access: { permission: "svc:org:write", org: "org_id" },
    params: orgIdParams,
    body: updateOrganizationInput,
    response: organizationSchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, body, ...ctx }) => updateOrganization(ctx, params.org_id, body),
  }),
  updateSubscription: defineOperation({
    id: "updateSubscription",
    method: "PUT",
    path: `${ONE}/subscription`,
    tag,
    summary: "Change an organization's subscription tier or status",
    access: { permission: "svc:system:orgs:write" },
    params: orgIdParams,
    body: updateSubscriptionInput,
    response: organizationSchema,
    errors: ["not_found"],
    handler: ({ params, body, ...ctx }) => updateOrganization(ctx, params.org_id, body),
  }),
  ...softDeletable({
    name: "Organization",
    noun: "an organization",
    path: ONE,
    tag,
    params: orgIdParams,
    response: organizationSchema,
    access: {
      read: { permission: "svc:org:read", org: "org_id" },
      delete: { permission: "svc:system:orgs:delete" },
      restore: { permission: "svc:system:orgs:write" },
    },
    notes: { delete: "Everything in it disappears with it, and its members' API keys lose it at once." },
    errors: { restore: ["conflict"] },
    get: (ctx, p, options) => getOrganization(ctx, p.org_id, options),
    delete: (ctx, p) => deleteOrganization(ctx, p.org_id),
    restore: (ctx, p) => restoreOrganization(ctx, p.org_id),
  }),
};
