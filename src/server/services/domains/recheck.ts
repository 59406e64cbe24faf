import "server-only";
import { DOMAIN_FAILED_ACTION, DOMAIN_RECORD_MISSING_ACTION } from "@/lib/audit-actions";
import { RECORD_GRACE_DAYS, txtName } from "@/lib/domains";
import { systemActor } from "@/server/auth/actor";
import type { Context } from "@/server/db/context";
import { log } from "@/server/log";
import { NO_REQUEST, recordChange } from "@/server/services/audit/record";
import { lookupTxt } from "./dns";
import { judge } from "./service";

// The daily re-check of verified domains: the record must stay published. Missing once starts a
// grace period (missing_since); still missing RECORD_GRACE_DAYS later, the domain fails and
// `domain.failed` goes out. A lookup that got no answer at all (timeout, server failure) proves
// nothing either way and changes only last_checked_at and last_error.

export const DOMAIN_RECHECKER = systemActor("domain-recheck");

const DAY_MS = 86_400_000;
/** A domain checked more recently than this is left for the next run (verify and the job share last_checked_at). */
const RECHECK_AFTER_MS = 20 * 3_600_000;

export async function recheckDomains(
  ctx: Context,
  { now = new Date() }: { now?: Date } = {},
): Promise<{ checked: number; failed: string[] }> {
  const due = await ctx.db.organizationDomain.findMany({
    where: {
      status: "verified",
      OR: [{ last_checked_at: null }, { last_checked_at: { lte: new Date(now.getTime() - RECHECK_AFTER_MS) } }],
    },
    orderBy: { last_checked_at: { sort: "asc", nulls: "first" } },
    take: 1000,
  });
  const failed: string[] = [];
  for (const domain of due) {
    const verdict = judge(domain, await lookupTxt(txtName(domain.domain)));
    await ctx.transaction(async (tx) => {
      // Read again inside the transaction: the domain may have been removed or re-verified meanwhile.
      const row = await tx.db.organizationDomain.findFirst({ where: { id: domain.id, status: "verified" } });
      if (!row) return;
      if (verdict.found || !verdict.definite) {
        await tx.db.organizationDomain.update({
          where: { id: row.id },
          data: {
            last_checked_at: now,
            last_error: verdict.reason,
            ...(verdict.found ? { missing_since: null } : {}),
          },
        });
        return;
      }
      const missingSince = row.missing_since ?? now;
      const expired = missingSince.getTime() <= now.getTime() - RECORD_GRACE_DAYS * DAY_MS;
      await tx.db.organizationDomain.update({
        where: { id: row.id },
        data: {
          last_checked_at: now,
          last_error: verdict.reason,
          missing_since: missingSince,
          ...(expired ? { status: "failed" } : {}),
        },
      });
      if (expired || !row.missing_since) {
        await recordChange(tx, {
          actor: tx.actor,
          action: expired ? DOMAIN_FAILED_ACTION : DOMAIN_RECORD_MISSING_ACTION,
          outcome: "success",
          target: { type: "domain", id: row.id },
          orgId: row.org_id,
          changes: expired
            ? { status: { old: "verified", new: "failed" } }
            : { missing_since: { old: null, new: missingSince.toISOString() } },
          request: NO_REQUEST,
          ...(expired ? { eventType: "domain.failed" } : {}),
        });
      }
      if (expired) {
        failed.push(row.id);
        log.info("domain failed: its TXT record was missing for 7 days", { domain_id: row.id, org_id: row.org_id });
      }
    });
  }
  return { checked: due.length, failed };
}
