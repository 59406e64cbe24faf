import "server-only";
import type { ScimPatchOperation } from "scim-patch";
import { z } from "zod";
import type { MapScimGroupInput } from "@/lib/schemas/scim";
import { SCIM_MAX_GROUP_MEMBERS, SCIM_SCHEMAS } from "@/lib/scim";
import { SCIM_CREATE_GROUP_ACTION, SCIM_DELETE_GROUP_ACTION, SCIM_UPDATE_GROUP_ACTION } from "@/lib/audit-actions";
import type { ScimActor } from "@/server/auth/actor";
import { requireHeldByActor } from "@/server/auth/escalation";
import { isPermission } from "@/lib/permissions";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import { DomainError, notFound } from "@/server/errors";
import type { RequestFacts } from "@/server/http/client";
import { withAccessChange } from "@/server/services/access-changes";
import { recordChange } from "@/server/services/audit/record";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate, type PageQuery } from "@/server/services/pagination";
import { invalidFilter, invalidValue, scimNotFound, uniqueness } from "./errors";
import {
  filterToWhere,
  idColumn,
  momentColumn,
  parseFilter,
  prismaLogic,
  stringColumn,
  type FilterTarget,
  type ScimGroupWhere,
} from "./filter";
import { editOf, type ResourceChange } from "./patch";
import { listResponse, lockResource, metaOf, requireMatch, type ListParams, type ScimCall } from "./resource";

// SCIM Groups (RFC 7643 §4.2) of the token's organization, and what an org admin does with them:
// a group grants nothing until mapped to org roles; then its members hold those roles in the
// organization (read with their grants, src/server/auth/grants.ts) and lose them on leaving it.

type ScimContext = Context<ScimActor>;

const groupRow = {
  include: { members: { select: { scim_user: { select: { id: true, user_id: true, user_name: true } } } } },
} as const;
type GroupRow = NonNullable<Awaited<ReturnType<DataLayer["scimGroup"]["findFirst"]>>> & {
  members: { scim_user: { id: string; user_id: string; user_name: string } }[];
};

const groupInput = z.object({
  displayName: z.string({ error: "displayName is required" }).trim().min(1, "displayName is required").max(255),
  externalId: z.string().trim().max(255).nullish(),
  members: z
    .array(z.object({ value: z.string().max(64) }))
    .max(SCIM_MAX_GROUP_MEMBERS)
    .nullish(),
});

interface GroupFields {
  display_name: string;
  external_id: string | null;
  memberIds: string[];
}

function parseGroup(body: unknown): GroupFields {
  const parsed = groupInput.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidValue(`${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  return {
    display_name: parsed.data.displayName,
    external_id: parsed.data.externalId || null,
    memberIds: [...new Set((parsed.data.members ?? []).map((m) => m.value.toLowerCase()))],
  };
}

function groupResource(row: GroupRow, origin: string) {
  return {
    schemas: [SCIM_SCHEMAS.group],
    id: row.id,
    ...(row.external_id && { externalId: row.external_id }),
    displayName: row.display_name,
    members: row.members.map(({ scim_user }) => ({
      value: scim_user.id,
      display: scim_user.user_name,
      $ref: `${origin}/api/scim/v2/Users/${scim_user.id}`,
      type: "User",
    })),
    meta: metaOf("Group", row, origin),
  };
}

const GROUP_FILTER: FilterTarget<ScimGroupWhere> = {
  attributes: {
    id: idColumn("id"),
    displayname: stringColumn("display_name"),
    externalid: stringColumn("external_id", { caseExact: true, nullable: true }),
    "members.value": (op, value) => {
      if (op !== "eq" || typeof value !== "string") throw invalidFilter("members.value takes eq with a user's id.");
      return /^[0-9a-f-]{36}$/i.test(value)
        ? { members: { some: { scim_user_id: value.toLowerCase() } } }
        : { id: { in: [] } };
    },
    "meta.created": momentColumn("created_at"),
    "meta.lastmodified": momentColumn("updated_at"),
  },
  complex: {
    members: {
      value: (op, value) => GROUP_FILTER.attributes["members.value"]!(op, value),
    },
  },
  ...prismaLogic<ScimGroupWhere>(),
};

async function requireGroup(db: DataLayer, orgId: string, id: string): Promise<GroupRow> {
  const row = /^[0-9a-f-]{36}$/i.test(id)
    ? await db.scimGroup.findFirst({ where: { id, org_id: orgId }, ...groupRow })
    : null;
  if (!row) throw scimNotFound("Group");
  return row;
}

export async function getScimGroup(ctx: ScimContext, id: string, origin: string) {
  return groupResource(await requireGroup(ctx.db, ctx.actor.orgId, id), origin);
}

export async function listScimGroups(ctx: ScimContext, params: ListParams, origin: string) {
  const where: ScimGroupWhere = {
    org_id: ctx.actor.orgId,
    ...(params.filter && { AND: [filterToWhere(parseFilter(params.filter), GROUP_FILTER)] }),
  };
  // Members are read only when they are answered: Entra asks with excludedAttributes=members.
  const withMembers = !params.excludedAttributes?.some((a) => a.toLowerCase().endsWith("members"));
  const [total, rows] = await Promise.all([
    ctx.db.scimGroup.count({ where }),
    params.count === 0
      ? Promise.resolve([])
      : ctx.db.scimGroup.findMany({
          where,
          orderBy: { id: "asc" },
          skip: params.startIndex - 1,
          take: params.count,
          ...(withMembers ? groupRow : {}),
        }),
  ]);
  return listResponse(
    rows.map((row) => groupResource({ members: [], ...row } as GroupRow, origin)),
    total,
    params,
  );
}

async function requireUniqueName(db: DataLayer, orgId: string, name: string, except?: string) {
  const other = await db.scimGroup.findFirst({
    where: {
      org_id: orgId,
      display_name: { equals: name, mode: "insensitive" },
      ...(except && { id: { not: except } }),
    },
    select: { id: true },
  });
  if (other) throw uniqueness(`A group named "${name}" exists.`);
}

/** The organization's provisioned users of these ids; 400 naming one that is not. */
async function membersOf(db: DataLayer, orgId: string, ids: string[]) {
  const malformed = ids.find((id) => !/^[0-9a-f-]{36}$/.test(id));
  if (malformed) throw invalidValue(`No user "${malformed}" to make a member.`);
  const users = await db.scimUser.findMany({
    where: { org_id: orgId, id: { in: ids } },
    select: { id: true, user_id: true },
  });
  const missing = ids.find((id) => !users.some((user) => user.id === id));
  if (missing) throw invalidValue(`No user "${missing}" to make a member.`);
  return users;
}

/** Sets the group's name and members; members who came or went are re-read everywhere when the group grants roles. */
async function writeGroup(
  tx: ScimContext,
  existing: GroupRow | null,
  fields: GroupFields,
  origin: string,
  request: RequestFacts,
) {
  const { orgId } = tx.actor;
  await requireUniqueName(tx.db, orgId, fields.display_name, existing?.id);
  const members = await membersOf(tx.db, orgId, fields.memberIds);
  const before = new Map((existing?.members ?? []).map(({ scim_user }) => [scim_user.id, scim_user.user_id]));
  const added = members.filter((m) => !before.has(m.id));
  const removed = [...before].filter(([id]) => !fields.memberIds.includes(id));
  const row = await withAccessChange(tx.db, async (inner) => {
    const data = { display_name: fields.display_name, external_id: fields.external_id };
    const group = existing
      ? await inner.scimGroup.update({ where: { id: existing.id }, data: { ...data, version: { increment: 1 } } })
      : await inner.scimGroup.create({ data: { ...data, org_id: orgId, role_ids: [] } });
    if (removed.length > 0)
      await inner.scimGroupMember.deleteMany({
        where: { group_id: group.id, scim_user_id: { in: removed.map(([id]) => id) } },
      });
    if (added.length > 0)
      await inner.scimGroupMember.createMany({ data: added.map((m) => ({ group_id: group.id, scim_user_id: m.id })) });
    const changedUsers =
      group.role_ids.length > 0 ? [...added.map((m) => m.user_id), ...removed.map(([, userId]) => userId)] : [];
    return { result: group, event: changedUsers.map((userId) => ({ userId })) };
  });
  await recordChange(tx, {
    actor: tx.actor,
    action: existing ? SCIM_UPDATE_GROUP_ACTION : SCIM_CREATE_GROUP_ACTION,
    outcome: "success",
    target: { type: "scim_group", id: row.id },
    orgId,
    changes: {
      ...(existing?.display_name !== fields.display_name && {
        display_name: { old: existing?.display_name ?? null, new: fields.display_name },
      }),
      ...(added.length > 0 && { members_added: { old: null, new: added.map((m) => m.id) } }),
      ...(removed.length > 0 && { members_removed: { old: removed.map(([id]) => id), new: null } }),
    },
    request,
    eventType: existing ? "scim_group.updated" : "scim_group.created",
  });
  return groupResource(await requireGroup(tx.db, orgId, row.id), origin);
}

export async function createScimGroup(ctx: ScimContext, body: unknown, origin: string, request: RequestFacts) {
  const fields = parseGroup(body);
  return ctx.transaction((tx) => writeGroup(tx, null, fields, origin, request));
}

/** A PUT or PATCH of a group, held to `If-Match`. */
export async function changeScimGroup(ctx: ScimContext, id: string, change: ResourceChange, call: ScimCall) {
  const edit = editOf(change, membersRemovedByValue);
  return ctx.transaction(async (tx) => {
    await lockResource(tx.db, "Group", id);
    const existing = await requireGroup(tx.db, tx.actor.orgId, id);
    requireMatch(call.ifMatch, existing.version);
    return writeGroup(tx, existing, parseGroup(edit(groupResource(existing, call.origin))), call.origin, call.request);
  });
}

/**
 * Entra ID removes members with `{"op": "Remove", "path": "members", "value": [{"value": id}]}`;
 * the standard's form, which the library applies, names each in the path: `members[value eq id]`.
 */
function membersRemovedByValue(operation: ScimPatchOperation): ScimPatchOperation[] {
  if (operation.op !== "remove" || operation.path?.toLowerCase() !== "members" || !Array.isArray(operation.value))
    return [operation];
  return (operation.value as unknown[]).map((member) => {
    const id = (member as { value?: unknown } | null)?.value;
    if (typeof id !== "string" || !/^[0-9a-f-]{36}$/i.test(id))
      throw invalidValue("Each member to remove names a user's id.");
    return { op: "remove", path: `members[value eq "${id.toLowerCase()}"]` };
  });
}

export async function deleteScimGroup(ctx: ScimContext, id: string, ifMatch: string | null, request: RequestFacts) {
  await ctx.transaction(async (tx) => {
    await lockResource(tx.db, "Group", id);
    const existing = await requireGroup(tx.db, tx.actor.orgId, id);
    requireMatch(ifMatch, existing.version);
    await withAccessChange(tx.db, async (inner) => {
      await inner.scimGroup.delete({ where: { id: existing.id } });
      const event =
        existing.role_ids.length > 0 ? existing.members.map(({ scim_user }) => ({ userId: scim_user.user_id })) : [];
      return { result: undefined, event };
    });
    await recordChange(tx, {
      actor: tx.actor,
      action: SCIM_DELETE_GROUP_ACTION,
      outcome: "success",
      target: { type: "scim_group", id: existing.id },
      orgId: tx.actor.orgId,
      changes: { display_name: { old: existing.display_name, new: null } },
      request,
      eventType: "scim_group.deleted",
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The organization's side (REST and console)

const summaryOf = (row: {
  id: string;
  org_id: string;
  display_name: string;
  external_id: string | null;
  role_ids: string[];
  created_at: Date;
  updated_at: Date;
  _count: { members: number };
}) => ({
  id: row.id,
  org_id: row.org_id,
  display_name: row.display_name,
  external_id: row.external_id,
  role_ids: row.role_ids,
  member_count: row._count.members,
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export async function listDirectoryGroups(ctx: Context, orgId: string, query: PageQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return paginate(
    query,
    newestFirst,
    (w) =>
      db.scimGroup.findMany({
        where: { org_id: orgId, ...w.after },
        orderBy: w.orderBy,
        take: w.take,
        include: { _count: { select: { members: true } } },
      }),
    summaryOf,
  );
}

/**
 * Maps the group to org roles: its members hold them in the organization from the commit on. The
 * caller must hold every permission of those roles there (no escalation), and of the roles it
 * takes away.
 */
export async function mapDirectoryGroup(ctx: Context, orgId: string, groupId: string, input: MapScimGroupInput) {
  const { db, actor } = ctx;
  await requireOrganization(db, orgId);
  const group = await db.scimGroup.findFirst({
    where: { id: groupId, org_id: orgId },
    include: { members: { select: { scim_user: { select: { user_id: true } } } } },
  });
  if (!group) throw notFound("group");
  const roleIds = [...new Set(input.role_ids)];
  const roles = await db.role.findMany({
    where: { id: { in: [...roleIds, ...group.role_ids] } },
    select: { id: true, scope: true, permissions: { select: { permission: true } } },
  });
  const unknown = roleIds.filter((id) => !roles.some((role) => role.id === id && role.scope === "org"));
  if (unknown.length > 0)
    throw new DomainError("validation_failed", "Each role must be an org role.", {
      errors: unknown.map((id) => ({ path: `role_ids.${input.role_ids.indexOf(id)}`, message: "is not an org role" })),
    });
  const touched = roles.filter((role) => roleIds.includes(role.id) !== group.role_ids.includes(role.id));
  requireHeldByActor(
    actor,
    touched.flatMap((role) => role.permissions.map((p) => p.permission).filter(isPermission)),
    orgId,
  );
  return withAccessChange(db, async (tx) => {
    const row = await tx.scimGroup.update({
      where: { id: group.id },
      data: { role_ids: roleIds, version: { increment: 1 } },
      include: { _count: { select: { members: true } } },
    });
    return { result: summaryOf(row), event: group.members.map(({ scim_user }) => ({ userId: scim_user.user_id })) };
  });
}
