import "server-only";
import type { Context } from "@/server/db/context";
import { emitEvent } from "@/server/services/webhooks/events";

// Pending invitations past their expiry become expired, each announced once as invitation.expired.
// Readers already see them expired (service.ts computes it); this job makes the state stored.

/** At most this many per run: a backlog is worked off over the next runs. */
const BATCH = 500;

/** Expires what is due (in `orgId` only, when given), in `ctx`'s transaction. */
export async function expireInvitations(ctx: Context, orgId?: string): Promise<{ expired: number }> {
  let expired = 0;
  await ctx.transaction(async (tx) => {
    const rows = await tx.db.$queryRaw<{ id: string; org_id: string; email: string; expires_at: Date }[]>`
      UPDATE invitations SET status = 'expired', updated_at = now()
      WHERE id IN (SELECT id FROM invitations WHERE status = 'pending' AND expires_at <= now()
        AND (${orgId ?? null}::uuid IS NULL OR org_id = ${orgId ?? null}::uuid)
        ORDER BY expires_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING id, org_id, email, expires_at`;
    for (const row of rows) {
      await emitEvent(tx, "invitation.expired", row.org_id, {
        invitation: { id: row.id, org_id: row.org_id, email: row.email, expires_at: row.expires_at.toISOString() },
      });
    }
    expired = rows.length;
  });
  return { expired };
}
