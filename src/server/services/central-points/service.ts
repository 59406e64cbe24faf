import type { Prisma } from "@/generated/prisma/client";
import { auditName, type Actor } from "@/server/auth/actor";
import { dataLayer, type DataLayer } from "@/server/db/data-layer";
import { notFound } from "@/server/errors";
import { requireOrganization } from "@/server/services/organizations/service";
import { decodeCursor, page } from "@/server/services/pagination";
import { lockOrganization, requireTierAtLeast, requireWithinQuota } from "@/server/services/quotas";
import type { CentralPoint, CreateCentralPointInput, UpdateCentralPointInput } from "@/lib/schemas/central-points";

// Central points: stable API handles for an organization's orchestrator instances (Pro and up).

type Row = Prisma.CentralPointGetPayload<object>;

const toCentralPoint = (row: Row): CentralPoint => ({
  id: row.id,
  org_id: row.org_id,
  orchestrator_id: row.orchestrator_id,
  name: row.name,
  description: row.description,
  visibility: row.visibility,
  status: row.status,
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString(),
});

async function requireInstanceInOrg(db: Pick<DataLayer, "orchestratorInstance">, orgId: string, id: string) {
  const instance = await db.orchestratorInstance.findFirst({ where: { id, org_id: orgId }, select: { id: true } });
  if (!instance) throw notFound("orchestrator instance");
}

export async function createCentralPoint(actor: Actor, orgId: string, input: CreateCentralPointInput) {
  const row = await dataLayer(auditName(actor)).$transaction(async (tx) => {
    await lockOrganization(tx, orgId);
    const org = await requireOrganization(tx, orgId);
    requireTierAtLeast(org.subscription_tier, "pro", "Central points");
    await requireWithinQuota(tx, org.subscription_tier, "max_central_points", await tx.centralPoint.count({ where: { org_id: orgId } }));
    await requireInstanceInOrg(tx, orgId, input.orchestrator_id);
    return tx.centralPoint.create({ data: { ...input, org_id: orgId } });
  });
  return toCentralPoint(row);
}

export async function listCentralPoints(actor: Actor, orgId: string, query: { limit: number; cursor?: string }) {
  const db = dataLayer(auditName(actor));
  await requireOrganization(db, orgId);
  const after = decodeCursor(query.cursor);
  const rows = await db.centralPoint.findMany({
    where: { org_id: orgId, ...(after ? { id: { lt: after } } : {}) },
    orderBy: { id: "desc" },
    take: query.limit + 1,
  });
  const result = page(rows, query.limit);
  return { data: result.data.map(toCentralPoint), next_cursor: result.next_cursor };
}

async function requireCentralPoint(db: Pick<DataLayer, "centralPoint">, orgId: string, id: string) {
  const row = await db.centralPoint.findFirst({ where: { id, org_id: orgId } });
  if (!row) throw notFound("central point");
  return row;
}

export async function getCentralPoint(actor: Actor, orgId: string, id: string) {
  return toCentralPoint(await requireCentralPoint(dataLayer(auditName(actor)), orgId, id));
}

export async function updateCentralPoint(actor: Actor, orgId: string, id: string, input: UpdateCentralPointInput) {
  const db = dataLayer(auditName(actor));
  await requireCentralPoint(db, orgId, id);
  if (input.orchestrator_id) await requireInstanceInOrg(db, orgId, input.orchestrator_id);
  return toCentralPoint(await db.centralPoint.update({ where: { id }, data: input }));
}

export async function deleteCentralPoint(actor: Actor, orgId: string, id: string) {
  const db = dataLayer(auditName(actor));
  await requireCentralPoint(db, orgId, id);
  return toCentralPoint(await db.centralPoint.update({ where: { id }, data: { is_deleted: true } }));
}
