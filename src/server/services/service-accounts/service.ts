import "server-only";
import type { z } from "zod";
import type { Context } from "@/server/db/context";
import { isPermission, type Permission } from "@/lib/permissions";
import type { Actor } from "@/server/auth/actor";
import { requireHeldByActor } from "@/server/auth/escalation";
import type { DataLayer } from "@/server/db/data-layer";
import { notFound, validationFailed } from "@/server/errors";
import { withAccessChange } from "@/server/services/access-changes";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate } from "@/server/services/pagination";
import { lockOrganization, requireWithinQuota } from "@/server/services/quotas";
import type {
  CreateServiceAccountInput,
  ListServiceAccountsQuery,
  serviceAccountSchema,
  UpdateServiceAccountInput,
} from "@/lib/schemas/service-accounts";
import { containing } from "@/server/services/search";
import { softDeleteUser } from "@/server/services/users/service";

// Service accounts: users of kind `service`, each a member of exactly one organization (made with
// it), with no password and no identity, holding only org roles there. Whoever manages them in the
// organization grants only what it holds there (requireHeldByActor). The account stays when the
// people who made it leave; deleting it revokes its keys. Its keys: ./keys.ts.

const ACCOUNT_SELECT = {
  id: true,
  username: true,
  display_name: true,
  created_by: true,
  created_at: true,
  updated_at: true,
} as const;

type Tx = Pick<DataLayer, "user" | "userRole" | "role">;

type AccountRow = { id: string; username: string; display_name: string | null; created_by: string | null };
type ServiceAccount = z.output<typeof serviceAccountSchema>;

async function rolesOf(db: Pick<DataLayer, "userRole">, orgId: string, userIds: string[]) {
  return db.userRole.findMany({
    where: { org_id: orgId, user_id: { in: userIds }, role: { is_deleted: false } },
    select: { user_id: true, role: { select: { id: true, name: true } } },
    orderBy: { id: "asc" },
  });
}

// A mapper: an account is its user row with the organization and the roles it holds there.
function toServiceAccount(
  orgId: string,
  row: AccountRow & { created_at: Date; updated_at: Date },
  roles: Awaited<ReturnType<typeof rolesOf>>,
): ServiceAccount {
  return {
    id: row.id,
    org_id: orgId,
    username: row.username,
    display_name: row.display_name,
    roles: roles.filter((r) => r.user_id === row.id).map((r) => r.role),
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const inOrg = (orgId: string) => ({ kind: "service", memberships: { some: { org_id: orgId } } });

/** The organization's service account, or a 404 (a human, or another organization's account, looks missing). */
export async function requireServiceAccount(db: Pick<DataLayer, "user">, orgId: string, userId: string) {
  const account = await db.user.findFirst({ where: { id: userId, ...inOrg(orgId) }, select: ACCOUNT_SELECT });
  if (!account) throw notFound("service account");
  return account;
}

/** Org roles by id, each one that exists and is an org role; their permissions for the no-escalation rule. */
async function orgRolesNamed(db: Pick<DataLayer, "role">, roleIds: readonly string[], field: string) {
  const roles = await db.role.findMany({
    where: { id: { in: [...roleIds] } },
    select: { id: true, scope: true, permissions: { select: { permission: true } } },
  });
  const bad = roleIds.flatMap((id, i) => {
    const role = roles.find((r) => r.id === id);
    if (!role) return [{ path: `${field}.${i}`, message: "is not a role" }];
    if (role.scope !== "org")
      return [{ path: `${field}.${i}`, message: "is a system role: a service account holds org roles only" }];
    return [];
  });
  if (bad.length > 0) throw validationFailed(bad);
  return roles;
}

const permissionsOf = (roles: { permissions: { permission: string }[] }[]): Permission[] => [
  ...new Set(roles.flatMap((r) => r.permissions.map((p) => p.permission)).filter(isPermission)),
];

export async function listServiceAccounts(
  ctx: Context,
  orgId: string,
  query: ListServiceAccountsQuery,
): Promise<{ data: ServiceAccount[]; next_cursor: string | null }> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const contains = query.q ? containing(query.q) : undefined;
  const where = { ...inOrg(orgId), ...(contains ? { OR: [{ username: contains }, { display_name: contains }] } : {}) };
  const page = await paginate(
    query,
    newestFirst,
    (w) =>
      db.user.findMany({ where: { ...where, ...w.after }, select: ACCOUNT_SELECT, orderBy: w.orderBy, take: w.take }),
    (row) => row,
  );
  const roles = await rolesOf(
    db,
    orgId,
    page.data.map((a) => a.id),
  );
  return { data: page.data.map((a) => toServiceAccount(orgId, a, roles)), next_cursor: page.next_cursor };
}

export async function getServiceAccount(ctx: Context, orgId: string, userId: string): Promise<ServiceAccount> {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  const account = await requireServiceAccount(db, orgId, userId);
  return toServiceAccount(orgId, account, await rolesOf(db, orgId, [userId]));
}

/**
 * Creates a service account in the organization with the org roles given: every permission of
 * every role must be one the actor holds there (403 `scope_not_held`, nothing stored). It counts
 * against the tier's max_members like any member.
 */
export async function createServiceAccount(
  ctx: Context,
  orgId: string,
  input: CreateServiceAccountInput,
): Promise<ServiceAccount> {
  const { db } = ctx;
  const roles = await orgRolesNamed(db, input.role_ids, "role_ids");
  requireHeldByActor(ctx.actor, permissionsOf(roles), orgId);
  return withAccessChange(db, async (tx) => {
    await lockOrganization(tx, orgId);
    const org = await requireOrganization(tx, orgId);
    const members = await tx.userOrgMembership.count({ where: { org_id: orgId, user: { is_deleted: false } } });
    await requireWithinQuota(tx, org.subscription_tier, "max_members", members);
    const account = await tx.user.create({
      data: { username: input.username, display_name: input.display_name, kind: "service", password_hash: null },
      select: ACCOUNT_SELECT,
    });
    await tx.userOrgMembership.create({ data: { user_id: account.id, org_id: orgId }, select: { id: true } });
    for (const role of input.role_ids)
      await tx.userRole.create({ data: { user_id: account.id, role_id: role, org_id: orgId }, select: { id: true } });
    return {
      result: toServiceAccount(orgId, account, await rolesOf(tx, orgId, [account.id])),
      event: { userId: account.id },
    };
  });
}

/** Grants and revokes org roles so that the account holds exactly `roleIds`; each one changed must be held by the actor. */
async function setRoles(actor: Actor, tx: Tx, orgId: string, userId: string, roleIds: readonly string[]) {
  const current = await tx.userRole.findMany({
    where: { user_id: userId, org_id: orgId },
    select: { id: true, role_id: true },
  });
  const added = roleIds.filter((id) => !current.some((g) => g.role_id === id));
  const removed = current.filter((g) => !roleIds.includes(g.role_id));
  const changed = await orgRolesNamed(tx, added, "role_ids");
  const taken = await tx.role.findMany({
    where: { id: { in: removed.map((g) => g.role_id) } },
    select: { permissions: { select: { permission: true } } },
  });
  requireHeldByActor(actor, permissionsOf([...changed, ...taken]), orgId);
  if (removed.length > 0) await tx.userRole.deleteMany({ where: { id: { in: removed.map((g) => g.id) } } });
  for (const role of added)
    await tx.userRole.create({ data: { user_id: userId, role_id: role, org_id: orgId }, select: { id: true } });
}

export async function updateServiceAccount(
  ctx: Context,
  orgId: string,
  userId: string,
  input: UpdateServiceAccountInput,
): Promise<ServiceAccount> {
  const { db } = ctx;
  return withAccessChange(db, async (tx) => {
    await requireOrganization(tx, orgId);
    await requireServiceAccount(tx, orgId, userId);
    if (input.role_ids !== undefined) await setRoles(ctx.actor, tx, orgId, userId, input.role_ids);
    const account = await tx.user.update({
      where: { id: userId },
      data: input.display_name === undefined ? {} : { display_name: input.display_name },
      select: ACCOUNT_SELECT,
    });
    return {
      result: toServiceAccount(orgId, account, await rolesOf(tx, orgId, [userId])),
      event: input.role_ids === undefined ? null : { userId },
    };
  });
}

/**
 * What ending the organization's service account needs — deleting it, or revoking one of its keys:
 * the account there, and the actor holding every permission of its roles there (403
 * `scope_not_held`), as taking those roles away would. Answers the account's roles.
 */
export async function requireMayEndServiceAccount(
  actor: Actor,
  db: Pick<DataLayer, "organization" | "user" | "userRole" | "role">,
  orgId: string,
  userId: string,
) {
  await requireOrganization(db, orgId);
  await requireServiceAccount(db, orgId, userId);
  const roles = await rolesOf(db, orgId, [userId]);
  const held = await db.role.findMany({
    where: { id: { in: roles.map((r) => r.role.id) } },
    select: { permissions: { select: { permission: true } } },
  });
  requireHeldByActor(actor, permissionsOf(held), orgId);
  return roles;
}

/**
 * Deletes a service account as every user is deleted (softDeleteUser): soft, and its keys revoked
 * at once, in every process, one audit event each. Taking its roles away needs the actor to hold
 * them.
 */
export async function deleteServiceAccount(ctx: Context, orgId: string, userId: string): Promise<ServiceAccount> {
  const { row, checked: roles } = await softDeleteUser(ctx, userId, (tx) =>
    requireMayEndServiceAccount(ctx.actor, tx, orgId, userId),
  );
  return toServiceAccount(orgId, row, roles);
}
