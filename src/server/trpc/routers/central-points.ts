import { z } from "zod";
import { cursor, id, limit } from "@/lib/schemas/common";
import { createCentralPointInput, updateCentralPointInput } from "@/lib/schemas/central-points";
import {
  createCentralPoint,
  deleteCentralPoint,
  getCentralPoint,
  listCentralPoints,
  updateCentralPoint,
} from "@/server/services/central-points/service";
import { createTRPCRouter, orgProcedure } from "../init";

// An organization's central points: pro tier and up (FORBIDDEN, `tier_required`), names unique
// among live ones (CONFLICT).

const one = z.strictObject({ org_id: id, central_point_id: id });

export const centralPointsRouter = createTRPCRouter({
  list: orgProcedure("svc:central_points:read", { list: true })
    .input(z.object({ org_id: id, limit, cursor }))
    .query(({ ctx, input: { org_id, ...query } }) => listCentralPoints(ctx.actor, org_id, query)),

  get: orgProcedure("svc:central_points:read")
    .input(one)
    .query(({ ctx, input }) => getCentralPoint(ctx.actor, input.org_id, input.central_point_id)),

  create: orgProcedure("svc:central_points:write")
    .input(createCentralPointInput.extend({ org_id: id }))
    .mutation(({ ctx, input: { org_id, ...point } }) => createCentralPoint(ctx.actor, org_id, point)),

  update: orgProcedure("svc:central_points:write")
    .input(updateCentralPointInput.extend({ org_id: id, central_point_id: id }))
    .mutation(({ ctx, input: { org_id, central_point_id, ...changes } }) => updateCentralPoint(ctx.actor, org_id, central_point_id, changes)),

  delete: orgProcedure("svc:central_points:write")
    .input(one)
    .mutation(({ ctx, input }) => deleteCentralPoint(ctx.actor, input.org_id, input.central_point_id)),
});
