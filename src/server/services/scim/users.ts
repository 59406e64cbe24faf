import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { SCIM_SCHEMAS } from "@/lib/scim";
import { SSO_IDENTITY_PREFIX } from "@/lib/identities";
import { SCIM_DEPROVISION_ACTION, SCIM_PROVISION_ACTION, SCIM_UPDATE_USER_ACTION } from "@/lib/audit-actions";
import type { ScimActor } from "@/server/auth/actor";
import { usernameBase } from "@/server/auth/oauth";
import type { Context } from "@/server/db/context";
import type { DataLayer } from "@/server/db/data-layer";
import type { RequestFacts } from "@/server/http/client";
import { endSessions, withAccessChange } from "@/server/services/access-changes";
import { recordChange } from "@/server/services/audit/record";
import { joinWithRole } from "@/server/services/memberships/join";
import { requireOrganization } from "@/server/services/organizations/service";
import { newestFirst, paginate, type PageQuery } from "@/server/services/pagination";
import { lockOrganization } from "@/server/services/quotas";
import { invalidValue, scimNotFound, ScimError, uniqueness } from "./errors";
import {
  booleanColumn,
  constantWhere,
  filterToWhere,
  idColumn,
  momentColumn,
  parseFilter,
  prismaLogic,
  stringColumn,
  type FilterTarget,
  type ScimUserWhere,
} from "./filter";
import { editOf, scimBoolean, type ResourceChange } from "./patch";
import { listResponse, lockResource, metaOf, requireMatch, type ListParams, type ScimCall } from "./resource";

// SCIM Users (RFC 7643 §4.1) of the token's organization. A resource is the organization's record
// of a person (`scim_users`), linked to the platform user it made — or found: an existing user whose
// verified email is at a verified domain of the organization is linked, not duplicated. `active:
// false` suspends the person's membership (their sessions and keys reach the organization no more,
// in every process, once it commits); DELETE ends it.

type ScimContext = Context<ScimActor>;

const userRow = {
  include: { groups: { select: { group: { select: { id: true, display_name: true } } } } },
} as const;
type UserRow = NonNullable<Awaited<ReturnType<DataLayer["scimUser"]["findFirst"]>>> & {
  groups: { group: { id: string; display_name: string } }[];
};

const optionalText = z.string().trim().max(255).nullish();

/** The User attributes we keep; the others a directory sends (phone numbers, the enterprise extension…) are ignored. */
const userInput = z.object({
  userName: z.string({ error: "userName is required" }).trim().min(1, "userName is required").max(255),
  externalId: optionalText,
  displayName: optionalText,
  name: z.object({ givenName: optionalText, familyName: optionalText }).nullish(),
  emails: z
    .array(
      z.object({
        value: z.string().trim().max(255),
        type: z.string().max(50).nullish(),
        primary: scimBoolean.nullish(),
      }),
    )
    .max(20)
    .nullish(),
  active: scimBoolean.nullish(),
});
type UserInput = z.output<typeof userInput>;

/** The attributes as stored: the work email is the primary one, else the one typed work, else the first. */
function fieldsOf(input: UserInput) {
  const emails = input.emails ?? [];
  const email = (emails.find((e) => e.primary === true) ?? emails.find((e) => e.type === "work") ?? emails[0])?.value;
  if (email !== undefined && !/^[^\s@]+@[^\s@]+$/.test(email))
    throw invalidValue(`"${email}" is not an email address.`);
  return {
    user_name: input.userName,
    external_id: input.externalId || null,
    display_name: input.displayName || null,
    given_name: input.name?.givenName || null,
    family_name: input.name?.familyName || null,
    email: email?.toLowerCase() || null,
    active: input.active ?? true,
  };
}
type UserFields = ReturnType<typeof fieldsOf>;

function parseUser(body: unknown): UserFields {
  const parsed = userInput.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidValue(`${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  return fieldsOf(parsed.data);
}

function userResource(row: UserRow, origin: string) {
  const name =
    row.given_name || row.family_name
      ? {
          ...(row.given_name && { givenName: row.given_name }),
          ...(row.family_name && { familyName: row.family_name }),
          formatted: [row.given_name, row.family_name].filter(Boolean).join(" "),
        }
      : undefined;
  return {
    schemas: [SCIM_SCHEMAS.user],
    id: row.id,
    ...(row.external_id && { externalId: row.external_id }),
    userName: row.user_name,
    ...(name && { name }),
    ...(row.display_name && { displayName: row.display_name }),
    emails: row.email ? [{ value: row.email, type: "work", primary: true }] : [],
    active: row.active,
    groups: row.groups.map(({ group }) => ({ value: group.id, display: group.display_name, type: "direct" })),
    meta: metaOf("User", row, origin),
  };
}

const USER_FILTER: FilterTarget<ScimUserWhere> = {
  attributes: {
    id: idColumn("id"),
    username: stringColumn("user_name"),
    externalid: stringColumn("external_id", { caseExact: true, nullable: true }),
    displayname: stringColumn("display_name", { nullable: true }),
    "name.givenname": stringColumn("given_name", { nullable: true }),
    "name.familyname": stringColumn("family_name", { nullable: true }),
    emails: stringColumn("email", { nullable: true }),
    "emails.value": stringColumn("email", { nullable: true }),
    "emails.type": constantWhere("work", { email: { not: null } }, { id: { in: [] } }),
    "emails.primary": constantWhere(true, { email: { not: null } }, { id: { in: [] } }),
    active: booleanColumn("active"),
    "meta.created": momentColumn("created_at"),
    "meta.lastmodified": momentColumn("updated_at"),
  },
  complex: {
    emails: {
      value: stringColumn("email", { nullable: true }),
      type: constantWhere("work", { email: { not: null } }, { id: { in: [] } }),
      primary: constantWhere(true, { email: { not: null } }, { id: { in: [] } }),
    },
  },
  ...prismaLogic<ScimUserWhere>(),
};

async function requireUser(db: DataLayer, orgId: string, id: string): Promise<UserRow> {
  const row = /^[0-9a-f-]{36}$/i.test(id)
    ? await db.scimUser.findFirst({ where: { id, org_id: orgId }, ...userRow })
    : null;
  if (!row) throw scimNotFound("User");
  return row;
}

export async function getScimUser(ctx: ScimContext, id: string, origin: string) {
  return userResource(await requireUser(ctx.db, ctx.actor.orgId, id), origin);
}

export async function listScimUsers(ctx: ScimContext, params: ListParams, origin: string) {
  const where: ScimUserWhere = {
    org_id: ctx.actor.orgId,
    ...(params.filter && { AND: [filterToWhere(parseFilter(params.filter), USER_FILTER)] }),
  };
  const [total, rows] = await Promise.all([
    ctx.db.scimUser.count({ where }),
    params.count === 0
      ? Promise.resolve([])
      : ctx.db.scimUser.findMany({
          where,
          orderBy: { id: "asc" },
          skip: params.startIndex - 1,
          take: params.count,
          ...userRow,
        }),
  ]);
  return listResponse(
    rows.map((row) => userResource(row, origin)),
    total,
    params,
  );
}

/** 409 `uniqueness` when another person of the organization has the userName or externalId. */
async function requireUnique(db: DataLayer, orgId: string, fields: UserFields, except?: string): Promise<void> {
  const others = { org_id: orgId, ...(except && { id: { not: except } }) };
  if (
    await db.scimUser.findFirst({ where: { ...others, user_name: { equals: fields.user_name, mode: "insensitive" } } })
  )
    throw uniqueness(`A user with userName "${fields.user_name}" exists.`);
  if (fields.external_id && (await db.scimUser.findFirst({ where: { ...others, external_id: fields.external_id } })))
    throw uniqueness(`A user with externalId "${fields.external_id}" exists.`);
}

const domainOf = (email: string) => email.slice(email.lastIndexOf("@") + 1);

async function atVerifiedDomain(db: DataLayer, orgId: string, email: string): Promise<boolean> {
  return (
    (await db.organizationDomain.count({ where: { org_id: orgId, domain: domainOf(email), status: "verified" } })) > 0
  );
}

/**
 * The platform user a new resource stands for: the existing one with this verified email at a
 * verified domain of the organization (linked), else a new one. A new user carries the email only
 * at a verified domain (verified, as the organization vouches for its domain): an address elsewhere
 * stays on the resource, so a directory cannot hold another domain's addresses on the platform.
 */
async function userFor(db: DataLayer, orgId: string, fields: UserFields): Promise<{ userId: string; linked: boolean }> {
  const verifiedDomain = fields.email ? await atVerifiedDomain(db, orgId, fields.email) : false;
  if (fields.email && verifiedDomain) {
    const existing = await db.user.findFirst({
      where: { email: fields.email },
      select: { id: true, kind: true, email_verified_at: true },
    });
    if (existing) {
      const systemRoles = await db.userRole.count({
        where: { user_id: existing.id, org_id: null, role: { is_deleted: false } },
      });
      if (existing.kind !== "human" || !existing.email_verified_at || systemRoles > 0)
        throw uniqueness(
          `An account with the email ${fields.email} exists and cannot be linked by a directory (its email is not verified, or it holds a platform role).`,
        );
      return { userId: existing.id, linked: true };
    }
  }
  const user = await db.user.create({
    data: {
      username: await freeUsername(db, fields.user_name),
      display_name: fields.display_name ?? ([fields.given_name, fields.family_name].filter(Boolean).join(" ") || null),
      ...(fields.email && verifiedDomain && { email: fields.email, email_verified_at: new Date() }),
    },
    select: { id: true },
  });
  return { userId: user.id, linked: false };
}

/**
 * The new user's username: the userName's local part as usernames are written (letters, digits,
 * ".", "_", "-"), with a random suffix when another user has it. The userName itself stays the
 * resource's.
 */
async function freeUsername(db: DataLayer, userName: string): Promise<string> {
  const base = usernameBase(userName);
  for (let attempt = 0; attempt < 5; attempt++) {
    const candidate = attempt === 0 ? base : `${base.slice(0, 190)}-${randomBytes(3).toString("hex")}`;
    if (!(await db.user.findFirst({ where: { username: candidate }, select: { id: true } }))) return candidate;
  }
  throw uniqueness(`No free username could be made of "${userName}".`);
}

async function orgMemberRoleId(db: DataLayer): Promise<string> {
  const role = await db.role.findFirst({ where: { name: "org_member", is_built_in: true }, select: { id: true } });
  if (!role) throw new ScimError(503, "The built-in org_member role is missing.");
  return role.id;
}

/** Sets the membership's suspension to match `active`; the user's grants are re-read everywhere on commit. */
async function setSuspended(db: DataLayer, orgId: string, userId: string, active: boolean): Promise<void> {
  await withAccessChange(db, async (tx) => {
    await tx.userOrgMembership.updateMany({
      where: { org_id: orgId, user_id: userId },
      data: { suspended_at: active ? null : new Date() },
    });
    return { result: undefined, event: { userId } };
  });
}

export async function createScimUser(ctx: ScimContext, body: unknown, origin: string, request: RequestFacts) {
  const fields = parseUser(body);
  return ctx.transaction(async (tx) => {
    const { orgId } = tx.actor;
    await lockOrganization(tx.db, orgId);
    await requireUnique(tx.db, orgId, fields);
    const { userId, linked } = await userFor(tx.db, orgId, fields);
    if (await tx.db.scimUser.findFirst({ where: { org_id: orgId, user_id: userId } }))
      throw uniqueness(`The account with the email ${fields.email} is already provisioned here as another user.`);
    await joinWithRole(tx.db, orgId, userId, await orgMemberRoleId(tx.db));
    const row = await tx.db.scimUser.create({ data: { org_id: orgId, user_id: userId, ...fields }, ...userRow });
    if (!fields.active) await setSuspended(tx.db, orgId, userId, false);
    await recordChange(tx, {
      actor: tx.actor,
      action: SCIM_PROVISION_ACTION,
      outcome: "success",
      target: { type: "user", id: userId },
      orgId,
      changes: {
        user_name: { old: null, new: fields.user_name },
        linked_existing_user: { old: null, new: linked },
        active: { old: null, new: fields.active },
      },
      request,
      eventType: "user.provisioned",
    });
    return userResource(row, origin);
  });
}

/** Writes the new attributes of an existing resource (PUT, PATCH): one event, the suspension kept in step. */
async function writeUser(tx: ScimContext, row: UserRow, fields: UserFields, origin: string, request: RequestFacts) {
  const { orgId } = tx.actor;
  await requireUnique(tx.db, orgId, fields, row.id);
  const updated = await tx.db.scimUser.update({
    where: { id: row.id },
    data: { ...fields, version: { increment: 1 } },
    ...userRow,
  });
  if (fields.active !== row.active) await setSuspended(tx.db, orgId, row.user_id, fields.active);
  const changes = Object.fromEntries(
    (Object.keys(fields) as (keyof UserFields)[])
      .filter((key) => fields[key] !== row[key])
      .map((key) => [key, { old: row[key], new: fields[key] }]),
  );
  await recordChange(tx, {
    actor: tx.actor,
    action: SCIM_UPDATE_USER_ACTION,
    outcome: "success",
    target: { type: "user", id: row.user_id },
    orgId,
    changes,
    request,
    eventType: row.active && !fields.active ? "member.suspended" : "scim_user.updated",
  });
  return userResource(updated, origin);
}

/** A PUT or PATCH of a user, held to `If-Match`. */
export async function changeScimUser(ctx: ScimContext, id: string, change: ResourceChange, call: ScimCall) {
  const edit = editOf(change);
  return ctx.transaction(async (tx) => {
    await lockResource(tx.db, "User", id);
    const row = await requireUser(tx.db, tx.actor.orgId, id);
    requireMatch(call.ifMatch, row.version);
    return writeUser(tx, row, parseUser(edit(userResource(row, call.origin))), call.origin, call.request);
  });
}

/** Whether the user has a way in besides this organization: another membership, a password, a platform sign-in, a platform role. */
async function keepsAnotherWayIn(db: DataLayer, userId: string): Promise<boolean> {
  const [memberships, user, identities, systemRoles] = await Promise.all([
    db.userOrgMembership.count({ where: { user_id: userId } }),
    db.user.findFirst({ where: { id: userId }, select: { password_hash: true, kind: true } }),
    db.userOauthIdentity.count({ where: { user_id: userId, NOT: { provider: { startsWith: SSO_IDENTITY_PREFIX } } } }),
    db.userRole.count({ where: { user_id: userId, org_id: null } }),
  ]);
  return (
    memberships > 0 ||
    !user ||
    user.kind !== "human" ||
    user.password_hash !== null ||
    identities > 0 ||
    systemRoles > 0
  );
}

export async function deleteScimUser(
  ctx: ScimContext,
  id: string,
  ifMatch: string | null,
  request: RequestFacts,
): Promise<void> {
  await ctx.transaction(async (tx) => {
    const { orgId } = tx.actor;
    await lockResource(tx.db, "User", id);
    const row = await requireUser(tx.db, orgId, id);
    requireMatch(ifMatch, row.version);
    const userDeleted = await withAccessChange(tx.db, async (inner) => {
      await inner.scimUser.delete({ where: { id: row.id } });
      await inner.userRole.deleteMany({ where: { user_id: row.user_id, org_id: orgId } });
      await inner.userOrgMembership.deleteMany({ where: { user_id: row.user_id, org_id: orgId } });
      if (await keepsAnotherWayIn(inner as DataLayer, row.user_id))
        return { result: false, event: { userId: row.user_id } };
      const ended = await endSessions(inner, row.user_id);
      await inner.user.update({ where: { id: row.user_id }, data: { is_deleted: true }, select: { id: true } });
      return { result: true, event: ended };
    });
    await recordChange(tx, {
      actor: tx.actor,
      action: SCIM_DEPROVISION_ACTION,
      outcome: "success",
      target: { type: "user", id: row.user_id },
      orgId,
      changes: {
        user_name: { old: row.user_name, new: null },
        user_deleted: { old: false, new: userDeleted },
      },
      request,
      eventType: "user.deprovisioned",
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The organization's side (REST and console)

export async function listDirectoryUsers(ctx: Context, orgId: string, query: PageQuery) {
  const { db } = ctx;
  await requireOrganization(db, orgId);
  return paginate(query, newestFirst, (w) =>
    db.scimUser.findMany({
      where: { org_id: orgId, ...w.after },
      orderBy: w.orderBy,
      take: w.take,
      select: {
        id: true,
        user_id: true,
        user_name: true,
        external_id: true,
        display_name: true,
        email: true,
        active: true,
        created_at: true,
        updated_at: true,
      },
    }),
  );
}
