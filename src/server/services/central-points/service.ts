import "server-only";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { notFound } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import { lockOrganization, requireTierAtLeast, requireWithinQuota } from "@/server/services/quotas";
import type {
  CreateCentralPointInput,
  ListCentralPointsQuery,
  UpdateCentralPointInput,
} from "@/lib/schemas/central-points";

// Central points: stable API handles for an organization's orchestrator instances (Pro and up).

async function requireInstanceInOrg(db: Pick<DataLayer, "orchestratorInstance">, orgId: string, id: string) {
  const instance = await db.orchestratorInstance.findFirst({ where: { id, org_id: orgId }, select: { id: true } });
  if (!instance) throw notFound("orchestrator instance");
}

/**
 * What a new or restored central point needs, the organization locked by the caller: pro tier and
 * up, room within max_central_points, and its instance in the same organization.
 */
async function requireRoomForCentralPoint(
  tx: Pick<DataLayer, "organization" | "platformSetting" | "centralPoint" | "orchestratorInstance">,
  orgId: string,
  orchestratorId: string,
) {
  const org = await requireOrganization(tx, orgId);
  requireTierAtLeast(org.subscription_tier, "pro", "Central points");
  await requireWithinQuota(
    tx,
    org.subscription_tier,
    "max_central_points",
    await tx.centralPoint.count({ where: { org_id: orgId } }),
  );
  await requireInstanceInOrg(tx, orgId, orchestratorId);
}

export async function createCentralPoint(ctx: Context, orgId: string, input: CreateCentralPointInput) {
  return ctx.db.$transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    await requireRoomForCentralPoint(tx, orgId, input.orchestrator_id);
    return tx.centralPoint.create({ data: { ...input, org_id: orgId } });
  });
}

export async function listCentralPoints(ctx: Context, orgId: string, query: ListCentralPointsQuery) {
  const db = query.include_deleted === true ? ctx.includingDeleted() : ctx.db;
  await requireOrganization(db, orgId);
  return paginate(query, newestFirst, (w) =>
    db.centralPoint.findMany({ where: { org_id: orgId, ...w.after }, orderBy: w.orderBy, take: w.take }),
  );
}

async function requireCentralPoint(db: Pick<DataLayer, "centralPoint">, orgId: string, id: string) {
  const row = await db.centralPoint.findFirst({ where: { id, org_id: orgId } });
  if (!row) throw notFound("central point");
  return row;
}

export async function getCentralPoint(
  ctx: Context,
  orgId: string,
  id: string,
  options: { includeDeleted?: boolean } = {},
) {
  return requireCentralPoint(options.includeDeleted === true ? ctx.includingDeleted() : ctx.db, orgId, id);
}

export async function updateCentralPoint(ctx: Context, orgId: string, id: string, input: UpdateCentralPointInput) {
  const { db } = ctx;
  await requireCentralPoint(db, orgId, id);
  if (input.orchestrator_id) await requireInstanceInOrg(db, orgId, input.orchestrator_id);
  return db.centralPoint.update({ where: { id }, data: input });
}

export async function deleteCentralPoint(ctx: Context, orgId: string, id: string) {
  const { db } = ctx;
  await requireCentralPoint(db, orgId, id);
  return db.centralPoint.update({ where: { id }, data: { is_deleted: true } });
}

/** Brings a deleted central point back (pro tier and up, within max_central_points); a live one answers as it is. */
export async function restoreCentralPoint(ctx: Context, orgId: string, id: string) {
  return ctx.db.$transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    const deleted = await tx.centralPoint.findFirst({ where: { id, org_id: orgId, is_deleted: true } });
    if (!deleted) return requireCentralPoint(tx, orgId, id);
    await requireRoomForCentralPoint(tx, orgId, deleted.orchestrator_id);
    return tx.centralPoint.update({ where: { id, is_deleted: true }, data: { is_deleted: false } });
  });
}
