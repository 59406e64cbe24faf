import { z } from "zod";
import {
  DESCRIPTION_LENGTH,
  EXAMPLE_LIVE_RECORD,
  id,
  includeDeleted,
  LENGTH,
  listOf,
  pageQuery,
  softDeletedRecord,
  text,
} from "./common";

export const VISIBILITIES = ["private", "public"] as const;
export const CENTRAL_POINT_STATUSES = ["active", "inactive"] as const;

export const createCentralPointInput = z
  .strictObject({
    name: text().trim().min(1),
    orchestrator_id: id,
    description: text(DESCRIPTION_LENGTH).nullable().optional(),
    visibility: z.enum(VISIBILITIES).default("private"),
    status: z.enum(CENTRAL_POINT_STATUSES).default("active"),
  })
  .meta({
    examples: [
      {
        name: "support",
        orchestrator_id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a",
        description: "Acme's support assistant.",
        visibility: "public",
      },
    ],
  });
export type CreateCentralPointInput = z.output<typeof createCentralPointInput>;

export const updateCentralPointInput = z
  .strictObject({
    name: text().trim().min(1).optional(),
    orchestrator_id: id.optional(),
    description: text(DESCRIPTION_LENGTH).nullable().optional(),
    visibility: z.enum(VISIBILITIES).optional(),
    status: z.enum(CENTRAL_POINT_STATUSES).optional(),
  })
  .meta({ examples: [{ status: "inactive" }] });
export type UpdateCentralPointInput = z.output<typeof updateCentralPointInput>;

export const listCentralPointsQuery = pageQuery.extend({ include_deleted: includeDeleted });
export type ListCentralPointsQuery = z.output<typeof listCentralPointsQuery>;
export const centralPointParams = z.strictObject({ org_id: id, central_point_id: id });

export const centralPointSchema = z
  .object({
    id: z.uuid(),
    org_id: z.uuid(),
    orchestrator_id: z.uuid(),
    name: text(),
    description: text(DESCRIPTION_LENGTH).nullable(),
    visibility: text(LENGTH.SHORT),
    status: text(LENGTH.SHORT),
    ...softDeletedRecord,
  })
  .meta({
    id: "CentralPoint",
    examples: [
      {
        id: "0193a5c6-8a9b-7c0d-8e1f-2a3b4c5d6e7f",
        org_id: "0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70",
        orchestrator_id: "0193a5c4-2b3c-7d4e-8f5a-6b7c8d9e0f1a",
        name: "support",
        description: "Acme's support assistant.",
        visibility: "public",
        status: "active",
        ...EXAMPLE_LIVE_RECORD,
      },
    ],
  });
export type CentralPoint = z.input<typeof centralPointSchema>;
export const centralPointListSchema = listOf(centralPointSchema);
