import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import { isPermission } from "@/lib/permissions";
import { requireHeldByActor } from "@/server/auth/escalation";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound } from "@/server/errors";
import { withAccessChange } from "@/server/services/access-changes";
import { requireOrganization } from "@/server/services/organizations/service";
import { byUuidDesc, paginate } from "@/server/services/pagination";
import { lockOrganization, requireBelowPlatformLimit, requireWithinQuota } from "@/server/services/quotas";
import type {
  AddMemberInput,
  ListMembersQuery,
  ListUserOrganizationsQuery,
  memberSchema,
  userOrganizationListSchema,
} from "@/lib/schemas/members";
import { MAX_ORGANIZATIONS_PER_USER } from "@/lib/schemas/organizations";
import { containing } from "@/server/services/search";

// Organization memberships. Org grants only count while the user is a member, so
// leaving an organization also removes the user's grants there: rejoining starts from nothing.
// The tier's max_members quota (platform setting tier.<tier>) caps an organization's members.

type Member = z.output<typeof memberSchema>;
type UserOrganization = z.output<typeof userOrganizationListSchema>["data"][number];

const MEMBER_USER = { select: { id: true, username: true, display_name: true, email: true } } as const;

async function orgRoles(
  db: Pick<DataLayer, "userRole">,
  where: { user_id?: string | { in: string[] }; org_id?: string | { in: string[] } },
) {
  return db.userRole.findMany({
    where: { ...where, role: { is_deleted: false } },
    select: { user_id: true, org_id: true, role: { select: { id: true, name: true } } },
    orderBy: { id: "asc" },
  });
}

const rolesFor = (roles: Awaited<ReturnType<typeof orgRoles>>, userId: string, orgId: string) =>
  roles.filter((r) => r.user_id === userId && r.org_id === orgId).map((r) => ({ id: r.role.id, name: r.role.name }));

// A mapper: a member is a membership with its user's fields and its roles.
function toMember(
  orgId: string,
  m: {
    created_at: Date;
    suspended_at: Date | null;
    user: { id: string; username: string; display_name: string | null; email: string | null };
  },
  roles: Member["roles"],
): Member {
  return {
    org_id: orgId,
    user_id: m.user.id,
    username: m.user.username,
    display_name: m.user.display_name,
    email: m.user.email,
    roles,
    suspended: m.suspended_at !== null,
    created_at: m.created_at,
  };
}

/** A service account belongs to the one organization it was made in, until it is deleted. */
const serviceAccountStays = (path: string) =>
  new DomainError(
    "conflict",
    "A service account belongs to the one organization it was created in: it joins no other and leaves only by being deleted.",
    { errors: [{ path, message: "is a service account" }] },
  );

/** Adds a user to an organization, within the tier's max_members. */
export async function addMember(ctx: Context, orgId: string, input: AddMemberInput): Promise<Member> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    await lockOrganization(tx, orgId);
    const org = await requireOrganization(tx, orgId);
    const user = await tx.user.findUnique({ where: { id: input.user_id }, select: { id: true, kind: true } });
    if (!user) throw notFound("user");
    if (user.kind !== "human") throw serviceAccountStays("user_id");
    const existing = await tx.userOrgMembership.findUnique({
      where: { user_id_org_id: { user_id: input.user_id, org_id: orgId } },
    });
    if (existing)
      throw new DomainError("conflict", "The user is already a member of the organization.", {
        errors: [{ path: "user_id", message: "is already a member" }],
      });
    const members = await tx.userOrgMembership.count({ where: { org_id: orgId, user: { is_deleted: false } } });
    await requireWithinQuota(tx, org.subscription_tier, "max_members", members);
    await requireBelowPlatformLimit(
      tx,
      { name: "organizations_per_user", max: MAX_ORGANIZATIONS_PER_USER, owner: input.user_id },
      () => tx.userOrgMembership.count({ where: { user_id: input.user_id } }),
    );
    const row = await tx.userOrgMembership.create({
      data: { user_id: input.user_id, org_id: orgId },
      select: { created_at: true, suspended_at: true, user: MEMBER_USER },
    });
    return { result: toMember(orgId, row, []), event: { userId: input.user_id } };
  });
}

/** Removes a user from an organization, with their grants there. Answers the removed membership. */
export async function removeMember(ctx: Context, orgId: string, userId: string): Promise<Member> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    await requireOrganization(tx, orgId);
    const membership = await tx.userOrgMembership.findFirst({
      where: { org_id: orgId, user_id: userId, user: { is_deleted: false } },
      select: {
        id: true,
        created_at: true,
        suspended_at: true,
        user: { select: { ...MEMBER_USER.select, kind: true } },
      },
    });
    if (!membership) throw notFound("member");
    if (membership.user.kind !== "human") throw serviceAccountStays("user_id");
    const granted = await tx.userRole.findMany({
      where: { user_id: userId, org_id: orgId, role: { is_deleted: false } },
      select: { role: { select: { permissions: { select: { permission: true } } } } },
    });
    // Removing a member takes away their org roles here: only for someone who could revoke them.
    requireHeldByActor(
      ctx.actor,
      granted.flatMap((g) => g.role.permissions.map((p) => p.permission)).filter(isPermission),
      orgId,
    );
    const roles = rolesFor(await orgRoles(tx, { user_id: userId, org_id: orgId }), userId, orgId);
    await tx.userRole.deleteMany({ where: { user_id: userId, org_id: orgId } });
    await tx.userOrgMembership.delete({ where: { id: membership.id } });
    return { result: toMember(orgId, membership, roles), event: { userId } };
  });
}

export async function getMember(ctx: Context, orgId: string, userId: string): Promise<Member> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const membership = await db.userOrgMembership.findFirst({
    where: { org_id: orgId, user_id: userId, user: { is_deleted: false } },
    select: { created_at: true, suspended_at: true, user: MEMBER_USER },
  });
  if (!membership) throw notFound("member");
  return toMember(orgId, membership, rolesFor(await orgRoles(db, { user_id: userId, org_id: orgId }), userId, orgId));
}

/** An organization's members (non-deleted users), newest user first, with their org roles there. */
export async function listMembers(
  ctx: Context,
  orgId: string,
  query: ListMembersQuery,
): Promise<{ data: Member[]; next_cursor: string | null }> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const contains = query.q ? containing(query.q) : undefined;
  const where = {
    org_id: orgId,
    user: {
      is_deleted: false,
      ...(contains ? { OR: [{ username: contains }, { display_name: contains }, { email: contains }] } : {}),
    },
  };
  const result = await paginate(query, byUuidDesc("user_id"), (w) =>
    db.userOrgMembership.findMany({
      where: { ...where, ...w.after },
      select: { user_id: true, created_at: true, suspended_at: true, user: MEMBER_USER },
      orderBy: w.orderBy,
      take: w.take,
    }),
  );
  const roles = await orgRoles(db, { org_id: orgId, user_id: { in: result.data.map((r) => r.user_id) } });
  return {
    data: result.data.map((m) => toMember(orgId, m, rolesFor(roles, m.user_id, orgId))),
    next_cursor: result.next_cursor,
  };
}

/** The organizations a user belongs to (non-deleted ones), newest first, with the user's org roles. */
export async function listUserOrganizations(
  ctx: Context,
  userId: string,
  query: ListUserOrganizationsQuery,
): Promise<{ data: UserOrganization[]; next_cursor: string | null }> {
  const { db } = ctx;
  if (!(await db.user.findUnique({ where: { id: userId }, select: { id: true } }))) throw notFound("user");
  const result = await paginate(query, byUuidDesc("org_id"), (w) =>
    db.userOrgMembership.findMany({
      where: { user_id: userId, ...w.after },
      select: {
        org_id: true,
        created_at: true,
        suspended_at: true,
        org: { select: { name: true, display_name: true } },
      },
      orderBy: w.orderBy,
      take: w.take,
    }),
  );
  const roles = await orgRoles(db, { user_id: userId, org_id: { in: result.data.map((r) => r.org_id) } });
  return {
    data: result.data.map((m) => ({
      org_id: m.org_id,
      name: m.org.name,
      display_name: m.org.display_name,
      roles: rolesFor(roles, userId, m.org_id),
      suspended: m.suspended_at !== null,
      created_at: m.created_at,
    })),
    next_cursor: result.next_cursor,
  };
}
