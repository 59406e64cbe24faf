import "server-only";
import {
  centralPointListSchema,
  centralPointParams,
  centralPointSchema,
  createCentralPointInput,
  listCentralPointsQuery,
  updateCentralPointInput,
} from "@/lib/schemas/central-points";
import { orgIdParams } from "@/lib/schemas/organizations";
import {
  createCentralPoint,
  deleteCentralPoint,
  getCentralPoint,
  listCentralPoints,
  restoreCentralPoint,
  updateCentralPoint,
} from "@/server/services/central-points/service";
import { defineOperation, inOrganization } from "./operation";
import { softDeletable } from "./soft-delete";

// An organization's central points: stable handles onto its orchestrator instances, pro tier and up.

const tag = "Central points";
const { BASE, ONE, read, write } = inOrganization("central-points", "central_point_id", {
  read: "svc:central_points:read",
  write: "svc:central_points:write",
});

export const centralPointOperations = {
  list: defineOperation({
    id: "listCentralPoints",
    method: "GET",
    path: BASE,
    tag,
    summary: "List an organization's central points",
    access: { ...read, list: true },
    params: orgIdParams,
    query: listCentralPointsQuery,
    response: centralPointListSchema,
    handler: ({ params, query, ...ctx }) => listCentralPoints(ctx, params.org_id, query),
  }),
  create: defineOperation({
    id: "createCentralPoint",
    method: "POST",
    path: BASE,
    tag,
    summary: "Create a central point",
    description: "Pro tier and above (403 `tier_required`); the name is unique in the organization (409 `conflict`).",
    access: write,
    params: orgIdParams,
    body: createCentralPointInput,
    response: centralPointSchema,
    created: (point) => point.id,
    errors: ["not_found", "tier_required", "quota_exceeded", "conflict"],
    handler: ({ params, body, ...ctx }) => createCentralPoint(ctx, params.org_id, body),
  }),
  update: defineOperation({
    id: "updateCentralPoint",
    method: "PATCH",
    path: ONE,
    tag,
    summary: "Update a central point",
    access: write,
    params: centralPointParams,
    body: updateCentralPointInput,
    response: centralPointSchema,
    errors: ["not_found", "conflict"],
    handler: ({ params, body, ...ctx }) => updateCentralPoint(ctx, params.org_id, params.central_point_id, body),
  }),
  ...softDeletable({
    name: "CentralPoint",
    noun: "a central point",
    path: ONE,
    tag,
    params: centralPointParams,
    response: centralPointSchema,
    access: { read, delete: write, restore: write },
    notes: {
      restore:
        "Pro tier and above, within `max_central_points`; 409 `conflict` when a live central point has taken its name.",
    },
    errors: { restore: ["tier_required", "quota_exceeded", "conflict"] },
    get: (ctx, p, options) => getCentralPoint(ctx, p.org_id, p.central_point_id, options),
    delete: (ctx, p) => deleteCentralPoint(ctx, p.org_id, p.central_point_id),
    restore: (ctx, p) => restoreCentralPoint(ctx, p.org_id, p.central_point_id),
  }),
};
