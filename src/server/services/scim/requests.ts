import "server-only";
import type { Context } from "@/server/db/context";
import { log } from "@/server/log";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate, type PageQuery } from "@/server/services/pagination";

// The latest SCIM requests of each organization and how they ended, for its admins to see what
// their directory is doing (and why it fails). Written after the answer, off the request path; a
// row that cannot be written is logged and the request is not affected.

/** How long a request stays listed. */
export const SCIM_REQUEST_RETENTION_DAYS = 7;

export interface ScimRequestOutcome {
  orgId: string;
  tokenPrefix: string;
  method: string;
  path: string;
  status: number;
  scimType: string | null;
  detail: string | null;
}

export function recordScimRequest(ctx: Context, outcome: ScimRequestOutcome): void {
  ctx.db.scimRequest
    .create({
      data: {
        org_id: outcome.orgId,
        token_prefix: outcome.tokenPrefix,
        method: outcome.method,
        path: outcome.path.slice(0, 2048),
        status: outcome.status,
        scim_type: outcome.scimType,
        detail: outcome.detail?.slice(0, 500) ?? null,
      },
      select: { id: true },
    })
    .catch((error: Error) => log.warn("could not record a SCIM request", { error: error.message }));
}

export async function listScimRequests(ctx: Context, orgId: string, query: PageQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return paginate(
    query,
    newestFirst,
    (w) => db.scimRequest.findMany({ where: { org_id: orgId, ...w.after }, orderBy: w.orderBy, take: w.take }),
    ({ created_at, ...row }) => ({ ...row, occurred_at: created_at }),
  );
}

/** Forgets requests past the retention (the daily upkeep). */
export async function pruneScimRequests(ctx: Context): Promise<number> {
  const before = new Date(Date.now() - SCIM_REQUEST_RETENTION_DAYS * 86_400_000);
  return (await ctx.db.scimRequest.deleteMany({ where: { created_at: { lt: before } } })).count;
}
