import "server-only";
import { DOMAIN_JOIN_ACTION } from "@/lib/audit-actions";
import { DOMAIN_POLICY_SETTING, DOMAIN_ROLE_SETTING } from "@/lib/domains";
import { systemActor } from "@/server/auth/actor";
import type { Context } from "@/server/db/context";
import { DomainError } from "@/server/errors";
import { log } from "@/server/log";
import { NO_REQUEST, recordChange } from "@/server/services/audit/record";
import { joinWithRole } from "@/server/services/memberships/join";

// Joining by verified domain (membership.domain_policy auto_join): at sign-in, a user whose email
// is verified and at a domain an organization has verified becomes its member with the one role the
// organization chose (membership.domain_role_id, else org_member), and nothing more.

export const DOMAIN_JOINER = systemActor("domain-join");

/** The role a user joining by domain gets: the setting's, when it names an org role, else org_member. */
async function joinRole(ctx: Context, value: unknown): Promise<string | null> {
  const { db } = ctx;
  if (typeof value === "string") {
    const role = await db.role
      .findFirst({ where: { id: value, scope: "org" }, select: { id: true } })
      .catch(() => null);
    if (role) return role.id;
  }
  return (
    (await db.role.findFirst({ where: { name: "org_member", is_built_in: true }, select: { id: true } }))?.id ?? null
  );
}

/**
 * Makes the user a member of every organization whose policy is auto_join and which has verified
 * the domain of the user's verified email. Answers the organizations joined. An organization at its
 * max_members is skipped (logged); the user's sign-in goes on whatever happens here.
 */
export async function joinByVerifiedDomain(ctx: Context, userId: string): Promise<string[]> {
  const { db } = ctx;
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { id: true, kind: true, email: true, email_verified_at: true },
  });
  if (!user || user.kind !== "human" || !user.email || !user.email_verified_at) return [];
  const domain = user.email.slice(user.email.lastIndexOf("@") + 1).toLowerCase();
  if (!domain) return [];
  const candidates = await db.organizationDomain.findMany({
    where: {
      domain,
      status: "verified",
      org: {
        is_deleted: false,
        settings: { some: { key: DOMAIN_POLICY_SETTING, is_deleted: false, value: { equals: "auto_join" } } },
        memberships: { none: { user_id: userId } },
      },
    },
    select: { id: true, org_id: true },
  });
  const joined: string[] = [];
  for (const candidate of candidates) {
    try {
      const orgId = candidate.org_id;
      const done = await ctx.transaction(async (tx) => {
        const setting = await tx.db.organizationSetting.findFirst({
          where: { org_id: orgId, key: DOMAIN_ROLE_SETTING },
          select: { value: true },
        });
        const roleId = await joinRole(tx, setting?.value);
        if (!roleId) return false;
        const added = await joinWithRole(tx.db, orgId, userId, roleId);
        if (added)
          await recordChange(tx, {
            actor: tx.actor,
            action: DOMAIN_JOIN_ACTION,
            outcome: "success",
            target: { type: "user", id: userId },
            orgId,
            changes: { role_id: { old: null, new: roleId }, domain_id: { old: null, new: candidate.id } },
            request: NO_REQUEST,
            eventType: "member.joined",
          });
        return added;
      });
      if (done) joined.push(orgId);
    } catch (error) {
      if (error instanceof DomainError && error.code === "quota_exceeded")
        log.info("auto-join skipped: the organization is at max_members", {
          org_id: candidate.org_id,
          user_id: userId,
        });
      else
        log.error("auto-join failed", { org_id: candidate.org_id, user_id: userId, error: (error as Error).message });
    }
  }
  return joined;
}
