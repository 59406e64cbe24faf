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
  updateCentralPoint,
} from "@/server/services/central-points/service";
import { defineRoute, RouteResult } from "../route";

const tag = "Central points";
const BASE = "/api/v1/organizations/{org_id}/central-points";
const ONE = `${BASE}/{central_point_id}`;

export const centralPointRoutes = [
  defineRoute({
    method: "GET", path: BASE, operationId: "listCentralPoints", tag, list: true,
    summary: "List an organization's central points",
    access: { permission: "svc:central_points:read", org: "org_id" },
    params: orgIdParams,
    query: listCentralPointsQuery,
    response: centralPointListSchema,
    handler: ({ actor, params, query }) => listCentralPoints(actor, params.org_id, query),
  }),
  defineRoute({
    method: "POST", path: BASE, operationId: "createCentralPoint", tag,
    summary: "Create a central point",
    description: "Pro tier and above (403 `tier_required`); the name is unique in the organization (409 `conflict`).",
    access: { permission: "svc:central_points:write", org: "org_id" },
    params: orgIdParams,
    body: createCentralPointInput,
    response: centralPointSchema,
    status: 201,
    errors: ["not_found", "tier_required", "quota_exceeded", "conflict"],
    handler: async ({ actor, params, body }) => {
      const point = await createCentralPoint(actor, params.org_id, body);
      return new RouteResult(point, { status: 201, headers: { Location: `/api/v1/organizations/${params.org_id}/central-points/${point.id}` } });
    },
  }),
  defineRoute({
    method: "GET", path: ONE, operationId: "getCentralPoint", tag,
    summary: "Read a central point",
    access: { permission: "svc:central_points:read", org: "org_id" },
    params: centralPointParams,
    response: centralPointSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => getCentralPoint(actor, params.org_id, params.central_point_id),
  }),
  defineRoute({
    method: "PATCH", path: ONE, operationId: "updateCentralPoint", tag,
    summary: "Update a central point",
    access: { permission: "svc:central_points:write", org: "org_id" },
    params: centralPointParams,
    body: updateCentralPointInput,
    response: centralPointSchema,
    errors: ["not_found", "conflict"],
    handler: ({ actor, params, body }) => updateCentralPoint(actor, params.org_id, params.central_point_id, body),
  }),
  defineRoute({
    method: "DELETE", path: ONE, operationId: "deleteCentralPoint", tag,
    summary: "Delete a central point (soft)",
    access: { permission: "svc:central_points:write", org: "org_id" },
    params: centralPointParams,
    response: centralPointSchema,
    errors: ["not_found"],
    handler: ({ actor, params }) => deleteCentralPoint(actor, params.org_id, params.central_point_id),
  }),
];
