import { z } from "zod";
import { id, includeDeleted, listOf, pageQuery, softDeletedRecord } from "./common";

export const VISIBILITIES = ["private", "public"] as const;
export const CENTRAL_POINT_STATUSES = ["active", "inactive"] as const;

export const createCentralPointInput = z.strictObject({
  name: z.string().trim().min(1).max(255),
  orchestrator_id: id,
  description: z.string().max(10_000).nullable().optional(),
  visibility: z.enum(VISIBILITIES).default("private"),
  status: z.enum(CENTRAL_POINT_STATUSES).default("active"),
});
export type CreateCentralPointInput = z.output<typeof createCentralPointInput>;

export const updateCentralPointInput = z.strictObject({
  name: z.string().trim().min(1).max(255).optional(),
  orchestrator_id: id.optional(),
  description: z.string().max(10_000).nullable().optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  status: z.enum(CENTRAL_POINT_STATUSES).optional(),
});
export type UpdateCentralPointInput = z.output<typeof updateCentralPointInput>;

export const listCentralPointsQuery = pageQuery.extend({ include_deleted: includeDeleted });
export type ListCentralPointsQuery = z.output<typeof listCentralPointsQuery>;
export const centralPointParams = z.strictObject({ org_id: id, central_point_id: id });

export const centralPointSchema = z.object({
  id: z.uuid(),
  org_id: z.uuid(),
  orchestrator_id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  visibility: z.string(),
  status: z.string(),
  ...softDeletedRecord,
});
export type CentralPoint = z.infer<typeof centralPointSchema>;
export const centralPointListSchema = listOf(centralPointSchema);
