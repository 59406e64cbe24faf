import "server-only";
import type { DataLayer } from "@/server/db/data-layer";
import { withAccessChange } from "@/server/services/access-changes";
import { lockOrganization, requireWithinQuota } from "@/server/services/quotas";

/**
 * Makes the user a member of the organization with one role, within the tier's max_members (422
 * `quota_exceeded` past it): how people join on their own at sign-in (by verified domain, or just
 * in time through the organization's SSO connection). False when they already are a member.
 */
export async function joinWithRole(db: DataLayer, orgId: string, userId: string, roleId: string): Promise<boolean> {
  return withAccessChange(db, async (inner) => {
    await lockOrganization(inner, orgId);
    const org = await inner.organization.findUnique({ where: { id: orgId } });
    if (!org) return { result: false, event: null };
    if (await inner.userOrgMembership.findFirst({ where: { org_id: orgId, user_id: userId } }))
      return { result: false, event: null };
    const members = await inner.userOrgMembership.count({ where: { org_id: orgId, user: { is_deleted: false } } });
    await requireWithinQuota(inner, org.subscription_tier, "max_members", members);
    await inner.userOrgMembership.create({ data: { user_id: userId, org_id: orgId } });
    await inner.userRole.create({ data: { user_id: userId, role_id: roleId, org_id: orgId } });
    return { result: true, event: { userId } };
  });
}
