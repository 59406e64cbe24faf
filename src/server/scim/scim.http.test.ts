import { beforeAll, describe, expect, it } from "vitest";
import { Browserless, PROCESS_TEST_TIMEOUT_MS, request, startReplicas, type Caller, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import {
  createOrg,
  createOrgAdmin,
  createOrgUser,
  createRole,
  createUserWith,
  join,
  PASSWORD,
  roleId,
  seedRoles,
} from "@/test/fixtures";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { createApiKey } from "@/server/services/api-keys/service";
import { consoleSession } from "@/test/suite";

// The SCIM 2.0 service over real HTTP, as a directory calls it: a token made by the organization's
// admin, Users and Groups in the shapes Okta and Entra ID send, and what provisioning does to
// membership and access. Two app processes serve one database (as two replicas behind a load
// balancer): directories call the first, and deactivation is checked on both.

const { client, url } = await testDatabase();
await seedRoles(client);
const [app, replica] = await startReplicas(url);

// ---------------------------------------------------------------------------------------------
// Helpers

const SCIM = "application/scim+json";
const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

interface ScimAnswer<T> {
  status: number;
  headers: Headers;
  body: T;
}
type ScimUser = {
  id: string;
  userName: string;
  externalId?: string;
  displayName?: string;
  active: boolean;
  name?: Record<string, string>;
  emails: { value: string }[];
  groups: { value: string }[];
  meta: { version: string; lastModified: string };
} & Record<string, unknown>;
type ScimGroup = { id: string; displayName: string; members?: { value: string }[]; meta: { version: string } };
type ListResponse<T = ScimUser> = {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: T[];
};
type ScimErrorBody = { schemas: string[]; status: string; scimType?: string; detail: string };

async function scim<T = Record<string, unknown>>(
  running: RunningApp,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ScimAnswer<T>> {
  const response = await running.fetch(`/api/scim/v2${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { "content-type": SCIM }),
      ...headers,
    },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

let sequence = 0;
const unique = (label: string) => `${label}-${process.pid}-${++sequence}`;

/** A new organization, its org admin (console session) and a SCIM token the admin made. */
async function organizationWithToken(name = "Okta") {
  // Directory sync is an enterprise's: the free tier's 5 members would cap the larger tests.
  const org = await client.organization.update({
    where: { id: (await createOrg(client)).id },
    data: { subscription_tier: "enterprise" },
  });
  const admin = await createOrgAdmin(client, org.id);
  const as: Caller = { session: await consoleSession(app, admin.username) };
  const created = await request<{ token: string; id: string; prefix: string }>(
    app,
    as,
    "POST",
    `/api/v1/organizations/${org.id}/scim-tokens`,
    { name },
  );
  expect(created.status).toBe(201);
  const { token, id: tokenId, prefix } = created.body;
  return {
    org,
    admin,
    as,
    token,
    tokenId,
    prefix,
    call: <T = Record<string, unknown>>(
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
    ) => scim<T>(app, token, method, path, body, headers),
  };
}
type Directory = Awaited<ReturnType<typeof organizationWithToken>>;

const patchOf = (...Operations: object[]) => ({ schemas: [PATCH_OP], Operations });
const usersWhere = (filter: string, more = "") => `/Users?filter=${encodeURIComponent(filter)}${more}`;
const groupsWhere = (filter: string, more = "") => `/Groups?filter=${encodeURIComponent(filter)}${more}`;

/** POST /Users with a work email equal to the userName; the 201's resource. */
async function provision(directory: Directory, userName: string, extra: Record<string, unknown> = {}) {
  const created = await directory.call<ScimUser>("POST", "/Users", {
    schemas: [USER],
    userName,
    emails: [{ value: userName, type: "work", primary: true }],
    active: true,
    ...extra,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

async function createGroup(directory: Directory, displayName = unique("Engineering"), members: string[] = []) {
  const created = await directory.call<ScimGroup>("POST", "/Groups", {
    schemas: [GROUP],
    displayName,
    members: members.map((value) => ({ value })),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}

/** A domain of the organization with status verified (each verified domain belongs to one organization). */
async function verifiedDomain(orgId: string) {
  const domain = `${unique("corp")}.test`;
  await client.organizationDomain.create({
    data: { org_id: orgId, domain, token: "t", status: "verified", verified_at: new Date() },
  });
  return domain;
}

/** An existing user with a password, a verified email at `domain`, and a membership of another organization. */
async function existingPersonAt(domain: string) {
  const person = await createOrgUser(client, (await createOrg(client)).id, "org_member");
  const email = `${person.username}@${domain}`;
  await client.user.update({ where: { id: person.id }, data: { email, email_verified_at: new Date() } });
  return { person, email };
}

/** Polls `check` every 50 ms for at most `limitMs`; answers the milliseconds it took to hold, or null. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > limitMs) return null;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Who the SCIM resource stands for on the platform. */
const platformUserOf = async (resourceId: string) =>
  (await client.scimUser.findUniqueOrThrow({ where: { id: resourceId } })).user_id;

/** Figures measured by the deactivation and role tests, printed at the end. */
const measured: Record<string, number | null> = {};

// ---------------------------------------------------------------------------------------------

describe("SCIM 2.0 service", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("provisions, lists with a filter, patches Entra's way, and deprovisions", async () => {
    const { org, token } = await organizationWithToken();
    const created = await scim<{ id: string; meta: { version: string } }>(app, token, "POST", "/Users", {
      schemas: [USER],
      userName: `ada-${org.id.slice(0, 8)}@acme.test`,
      externalId: "00u1",
      name: { givenName: "Ada", familyName: "Lovelace" },
      emails: [{ value: `ada-${org.id.slice(0, 8)}@acme.test`, type: "work", primary: true }],
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toContain(SCIM);
    expect(created.headers.get("etag")).toBe('W/"1"');

    const found = await scim<ListResponse>(app, token, "GET", usersWhere('externalId eq "00u1"'));
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0]!.id).toBe(created.body.id);

    const suspended = await scim<{ active: boolean }>(
      app,
      token,
      "PATCH",
      `/Users/${created.body.id}`,
      patchOf({ op: "Replace", path: "active", value: "False" }),
    );
    expect(suspended.status).toBe(200);
    expect(suspended.body.active).toBe(false);

    const membership = await client.userOrgMembership.findFirst({ where: { org_id: org.id }, orderBy: { id: "desc" } });
    expect(membership?.suspended_at).not.toBeNull();

    const bad = await scim(app, token, "GET", usersWhere("userName eq"));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ status: "400", scimType: "invalidFilter" });

    const gone = await scim(app, token, "DELETE", `/Users/${created.body.id}`);
    expect(gone.body).toBeUndefined();
    expect(gone.status).toBe(204);
    const after = await scim(app, token, "GET", `/Users/${created.body.id}`);
    expect(after.status).toBe(404);
  });

  it("refuses a request without a valid token", async () => {
    const answer = await scim(app, "scim_nonsense", "GET", "/Users");
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ status: "401" });
  });
});

describe("SCIM 2.0 service: Entra ID", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("answers Entra's existence check with an empty ListResponse before the user exists", async () => {
    const entra = await organizationWithToken("Entra ID");
    const check = await entra.call<ListResponse>("GET", usersWhere(`userName eq "nobody-${process.pid}@acme.test"`));
    expect(check.status).toBe(200);
    expect(check.headers.get("content-type")).toContain(SCIM);
    expect(check.body).toMatchObject({ schemas: [LIST], totalResults: 0 });
    expect(check.body.Resources ?? []).toEqual([]);
  });

  it("creates a user from Entra's body, ignoring the enterprise extension, title and preferredLanguage", async () => {
    const entra = await organizationWithToken("Entra ID");
    const userName = `${unique("ada")}@acme.test`;
    const created = await entra.call<ScimUser>("POST", "/Users", {
      schemas: [USER, ENTERPRISE],
      externalId: "4c9f0e3a-entra",
      userName,
      active: true,
      displayName: "Ada Lovelace",
      title: "Analyst",
      preferredLanguage: "en-GB",
      emails: [{ primary: true, type: "work", value: userName }],
      name: { formatted: "Ada Lovelace", familyName: "Lovelace", givenName: "Ada" },
      addresses: [{ type: "work", formatted: "1 Engine St", primary: true }],
      [ENTERPRISE]: { department: "Engines", employeeNumber: "42", manager: { value: "m-1" } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get("etag")).toBe('W/"1"');
    expect(created.body).toMatchObject({
      userName,
      externalId: "4c9f0e3a-entra",
      displayName: "Ada Lovelace",
      active: true,
      name: { givenName: "Ada", familyName: "Lovelace" },
      emails: [{ value: userName }],
    });
    expect(created.body).not.toHaveProperty("title");
    expect(created.body).not.toHaveProperty(ENTERPRISE);

    const check = await entra.call<ListResponse>("GET", usersWhere(`userName eq "${userName.toUpperCase()}"`));
    expect(check.body.totalResults).toBe(1);
    expect(check.body.Resources.map((u) => u.id)).toEqual([created.body.id]);
  });

  it('suspends on {"op":"Replace","path":"active","value":"False"} and reactivates on "True"', async () => {
    const entra = await organizationWithToken("Entra ID");
    const user = await provision(entra, `${unique("grace")}@acme.test`);
    const off = await entra.call<ScimUser>(
      "PATCH",
      `/Users/${user.id}`,
      patchOf({ op: "Replace", path: "active", value: "False" }),
    );
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    expect(off.headers.get("etag")).toBe('W/"2"');
    const membership = await client.userOrgMembership.findFirstOrThrow({
      where: { org_id: entra.org.id, user_id: await platformUserOf(user.id) },
    });
    expect(membership.suspended_at).not.toBeNull();

    const on = await entra.call<ScimUser>(
      "PATCH",
      `/Users/${user.id}`,
      patchOf({ op: "Replace", path: "active", value: "True" }),
    );
    expect(on.body.active).toBe(true);
    expect(
      (await client.userOrgMembership.findUniqueOrThrow({ where: { id: membership.id } })).suspended_at,
    ).toBeNull();
  });

  it('sets displayName with {"op":"Add","path":"displayName"}', async () => {
    const entra = await organizationWithToken("Entra ID");
    const user = await provision(entra, `${unique("linus")}@acme.test`);
    expect(user.displayName).toBeUndefined();
    const added = await entra.call<ScimUser>(
      "PATCH",
      `/Users/${user.id}`,
      patchOf({ op: "Add", path: "displayName", value: "Linus T." }),
    );
    expect(added.status).toBe(200);
    expect(added.body.displayName).toBe("Linus T.");
    expect((await entra.call<ScimUser>("GET", `/Users/${user.id}`)).body.displayName).toBe("Linus T.");
  });

  it("applies a path-less Replace whose value object has dotted keys (name.givenName) to the nested attribute", async () => {
    const entra = await organizationWithToken("Entra ID");
    const user = await provision(entra, `${unique("ada")}@acme.test`, {
      displayName: "Ada Lovelace",
      name: { givenName: "Ada", familyName: "Lovelace" },
    });
    const replaced = await entra.call<ScimUser>(
      "PATCH",
      `/Users/${user.id}`,
      patchOf({ op: "Replace", value: { displayName: "Augusta Lovelace", "name.givenName": "Augusta" } }),
    );
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect(replaced.body.displayName).toBe("Augusta Lovelace");
    expect(replaced.body.name).toMatchObject({
      givenName: "Augusta",
      familyName: "Lovelace",
      formatted: "Augusta Lovelace",
    });
    expect(replaced.body).not.toHaveProperty(["name.givenName"]);
    const stored = await client.scimUser.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored).toMatchObject({ given_name: "Augusta", family_name: "Lovelace", display_name: "Augusta Lovelace" });
  });

  it("adds a member with Add members, finds it with Entra's membership filter, and removes it by members[value eq]", async () => {
    const entra = await organizationWithToken("Entra ID");
    const user = await provision(entra, `${unique("member")}@acme.test`);
    const group = await createGroup(entra, unique("Sales"));
    expect(group.members ?? []).toEqual([]);
    const membership = groupsWhere(
      `id eq "${group.id}" and members[value eq "${user.id}"]`,
      "&excludedAttributes=members",
    );

    const before = await entra.call<ListResponse<ScimGroup>>("GET", membership);
    expect(before.body.totalResults).toBe(0);

    const added = await entra.call<ScimGroup>(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "Add", path: "members", value: [{ value: user.id }] }),
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.members?.map((m) => m.value)).toEqual([user.id]);

    const found = await entra.call<ListResponse<ScimGroup>>("GET", membership);
    expect(found.status).toBe(200);
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0]).toMatchObject({ id: group.id, displayName: group.displayName });
    expect(found.body.Resources[0]).not.toHaveProperty("members");
    expect((await entra.call<ScimUser>("GET", `/Users/${user.id}`)).body.groups.map((g) => g.value)).toEqual([
      group.id,
    ]);

    const removed = await entra.call<ScimGroup>(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "Remove", path: `members[value eq "${user.id}"]` }),
    );
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.members ?? []).toEqual([]);
    expect((await entra.call<ListResponse<ScimGroup>>("GET", membership)).body.totalResults).toBe(0);
  });
});

describe("SCIM 2.0 service: Entra ID removing members", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it('removes a member on Entra\'s {"op":"Remove","path":"members","value":[{"value":"<id>"}]}', async () => {
    const entra = await organizationWithToken("Entra ID");
    const [stays, leaves] = [
      await provision(entra, `${unique("stays")}@acme.test`),
      await provision(entra, `${unique("leaves")}@acme.test`),
    ];
    const group = await createGroup(entra, unique("Support"), [stays.id, leaves.id]);
    const removed = await entra.call<ScimGroup>(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "Remove", path: "members", value: [{ value: leaves.id }] }),
    );
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.members?.map((m) => m.value)).toEqual([stays.id]);
    const stored = await client.scimGroupMember.findMany({ where: { group_id: group.id } });
    expect(stored.map((m) => m.scim_user_id)).toEqual([stays.id]);
  });
});

describe("SCIM 2.0 service: Okta", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("replaces the whole user on PUT, as Okta sends it", async () => {
    const okta = await organizationWithToken();
    const userName = `${unique("isaac")}@okta.test`;
    const user = await provision(okta, userName, {
      externalId: "00u1okta",
      name: { givenName: "Isaac", familyName: "Newton" },
    });
    const put = await okta.call<ScimUser>("PUT", `/Users/${user.id}`, {
      schemas: [USER],
      id: user.id,
      userName,
      externalId: "00u1okta",
      name: { givenName: "Isaac", familyName: "Newton-Smith" },
      displayName: "Sir Isaac",
      emails: [{ primary: true, value: userName, type: "work" }],
      active: true,
      password: "ignored-Secret-1",
      groups: [],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.headers.get("etag")).toBe('W/"2"');
    expect(put.body).toMatchObject({
      id: user.id,
      displayName: "Sir Isaac",
      name: { givenName: "Isaac", familyName: "Newton-Smith" },
    });
    expect(put.body).not.toHaveProperty("password");
    expect(JSON.stringify(await client.scimUser.findUniqueOrThrow({ where: { id: user.id } }))).not.toContain(
      "ignored-Secret-1",
    );
  });

  it('suspends on Okta\'s path-less {"op":"replace","value":{"active":false}}', async () => {
    const okta = await organizationWithToken();
    const user = await provision(okta, `${unique("mary")}@okta.test`);
    const off = await okta.call<ScimUser>(
      "PATCH",
      `/Users/${user.id}`,
      patchOf({ op: "replace", value: { active: false } }),
    );
    expect(off.status).toBe(200);
    expect(off.body.active).toBe(false);
    const membership = await client.userOrgMembership.findFirstOrThrow({
      where: { org_id: okta.org.id, user_id: await platformUserOf(user.id) },
    });
    expect(membership.suspended_at).not.toBeNull();
  });

  it('finds users by the filters Okta sends: userName eq, externalId eq, emails[type eq "work"].value eq', async () => {
    const okta = await organizationWithToken();
    const target = await provision(okta, `${unique("alan")}@okta.test`, { externalId: "00uTARGET" });
    await provision(okta, `${unique("other")}@okta.test`, { externalId: "00uOTHER" });
    const ids = async (filter: string) => {
      const answer = await okta.call<ListResponse>("GET", usersWhere(filter, "&startIndex=1&count=100"));
      expect(answer.status, `${filter}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body.Resources.map((u) => u.id);
    };
    expect(await ids(`userName eq "${target.userName}"`)).toEqual([target.id]);
    expect(await ids('externalId eq "00uTARGET"')).toEqual([target.id]);
    // externalId is caseExact (RFC 7643 §3.1).
    expect(await ids('externalId eq "00utarget"')).toEqual([]);
    expect(await ids(`emails[type eq "work"].value eq "${target.userName}"`)).toEqual([target.id]);
    expect(await ids(`emails[type eq "work" and value eq "${target.userName}"]`)).toEqual([target.id]);
    expect(await ids(`emails[type eq "home"].value eq "${target.userName}"`)).toEqual([]);
  });

  it("pushes a group: replace displayName, add members, remove members", async () => {
    const okta = await organizationWithToken();
    const [a, b] = [
      await provision(okta, `${unique("a")}@okta.test`),
      await provision(okta, `${unique("b")}@okta.test`),
    ];
    const group = await createGroup(okta, unique("Okta Everyone"));
    const renamed = await okta.call<ScimGroup>(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf(
        { op: "replace", value: { id: group.id, displayName: "Okta Engineers" } },
        {
          op: "add",
          path: "members",
          value: [
            { value: a.id, display: a.userName },
            { value: b.id, display: b.userName },
          ],
        },
      ),
    );
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.id).toBe(group.id);
    expect(renamed.body.displayName).toBe("Okta Engineers");
    expect(renamed.body.members?.map((m) => m.value).sort()).toEqual([a.id, b.id].sort());

    const removed = await okta.call<ScimGroup>(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "remove", path: `members[value eq "${a.id}"]` }),
    );
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(removed.body.members?.map((m) => m.value)).toEqual([b.id]);
    const stored = await client.scimGroupMember.findMany({ where: { group_id: group.id } });
    expect(stored.map((m) => m.scim_user_id)).toEqual([b.id]);
  });
});

describe("SCIM 2.0 service: filters, paging and projections", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  // Five people of one organization, by their local part; userNames at acme.test (the last at
  // other.test), compared case-insensitively.
  let directory: Directory;
  const idOf = new Map<string, string>();
  const names = (ids: string[]) => ids.map((id) => [...idOf].find(([, each]) => each === id)?.[0] ?? id).sort();

  beforeAll(async () => {
    directory = await organizationWithToken();
    const people: [string, Record<string, unknown>][] = [
      ["alice", { displayName: "Alice Archer", externalId: "ext-a" }],
      ["bob", { displayName: "Bob Baker", externalId: "ext-b" }],
      ["carol", { displayName: "Carol Cooper" }],
      ["dave", {}],
      ["erin", { displayName: "Erin Eagle", externalId: "ext-e" }],
    ];
    for (const [name, extra] of people) {
      const domain = name === "erin" ? "other.test" : "acme.test";
      idOf.set(name, (await provision(directory, `${name}@${domain}`, extra)).id);
    }
  }, PROCESS_TEST_TIMEOUT_MS);

  const cases: [string, string[]][] = [
    ['userName eq "BOB@acme.test"', ["bob"]],
    ['userName ne "bob@acme.test"', ["alice", "carol", "dave", "erin"]],
    ['displayName ne "Alice Archer"', ["bob", "carol", "dave", "erin"]],
    ['displayName co "ar"', ["alice", "carol"]],
    ['userName sw "CA"', ["carol"]],
    ['userName ew "@other.test"', ["erin"]],
    ['userName co "%"', []],
    ["externalId pr", ["alice", "bob", "erin"]],
    ['userName gt "carol@acme.test"', ["dave", "erin"]],
    ['userName ge "carol@acme.test"', ["carol", "dave", "erin"]],
    ['userName lt "carol@acme.test"', ["alice", "bob"]],
    ['userName le "carol@acme.test"', ["alice", "bob", "carol"]],
    ['userName sw "a" or userName sw "b"', ["alice", "bob"]],
    ['externalId pr and displayName co "e"', ["alice", "bob", "erin"]],
    ['not (userName ew "@acme.test")', ["erin"]],
    ['(userName sw "a" or userName sw "d") and not (displayName pr)', ["dave"]],
    ['userName ew "acme.test" and (externalId eq "ext-a" or externalId eq "ext-e")', ["alice"]],
    ["active eq true", ["alice", "bob", "carol", "dave", "erin"]],
  ];

  it.each(cases)("answers %s with exactly %j", async (filter, expected) => {
    const answer = await directory.call<ListResponse>("GET", usersWhere(filter));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(names(answer.body.Resources.map((u) => u.id))).toEqual(expected);
    expect(answer.body.totalResults).toBe(expected.length);
  });

  it("answers meta.lastModified gt with the users changed after that moment", async () => {
    const own = await organizationWithToken();
    const first = await provision(own, `${unique("first")}@acme.test`);
    const second = await provision(own, `${unique("second")}@acme.test`);
    const after =
      first.meta.lastModified > second.meta.lastModified ? first.meta.lastModified : second.meta.lastModified;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const changed = await own.call<ScimUser>(
      "PATCH",
      `/Users/${first.id}`,
      patchOf({ op: "replace", path: "displayName", value: "Changed" }),
    );
    expect(changed.status).toBe(200);
    const answer = await own.call<ListResponse>("GET", usersWhere(`meta.lastModified gt "${after}"`));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.Resources.map((u) => u.id)).toEqual([first.id]);
  });

  it("matches a changed resource's own meta.lastModified with eq, and not with gt (a directory's sync watermark)", async () => {
    const own = await organizationWithToken();
    const user = await provision(own, `${unique("watermark")}@acme.test`);
    const changed = await own.call<ScimUser>(
      "PATCH",
      `/Users/${user.id}`,
      patchOf({ op: "replace", path: "displayName", value: "Changed" }),
    );
    const stamp = changed.body.meta.lastModified;
    const eq = await own.call<ListResponse>("GET", usersWhere(`meta.lastModified eq "${stamp}"`));
    const gt = await own.call<ListResponse>("GET", usersWhere(`meta.lastModified gt "${stamp}"`));
    expect({ eq: eq.body.totalResults, gt: gt.body.totalResults }).toEqual({ eq: 1, gt: 0 });
  });

  it.each([
    'title eq "Analyst"',
    'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "x"',
    'addresses[type eq "work"]',
    'userName eq "a" and phoneNumbers pr',
    'userName zz "a"',
    "userName eq",
  ])("refuses the filter %s with 400 invalidFilter", async (filter) => {
    const answer = await directory.call<ScimErrorBody>("GET", usersWhere(filter));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: "400", scimType: "invalidFilter" });
  });

  it("refuses an unsupported group filter (members.value with co) with 400 invalidFilter", async () => {
    const answer = await directory.call<ScimErrorBody>("GET", groupsWhere('members[value co "a"]'));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ status: "400", scimType: "invalidFilter" });
  });

  it("pages with startIndex and count, in a stable order that covers everyone once", async () => {
    const page = (startIndex: number, count: number) =>
      directory.call<ListResponse>("GET", `/Users?startIndex=${startIndex}&count=${count}`);
    const seen: string[] = [];
    for (const startIndex of [1, 3, 5]) {
      const answer = await page(startIndex, 2);
      expect(answer.body).toMatchObject({ totalResults: 5, startIndex, itemsPerPage: startIndex === 5 ? 1 : 2 });
      seen.push(...answer.body.Resources.map((u) => u.id));
    }
    expect(names(seen)).toEqual(["alice", "bob", "carol", "dave", "erin"]);
    expect(new Set(seen).size).toBe(5);
    const countOnly = await page(1, 0);
    expect(countOnly.body).toMatchObject({ totalResults: 5, itemsPerPage: 0 });
    expect(countOnly.body.Resources ?? []).toEqual([]);
  });

  it("caps count at 100", async () => {
    const many = await organizationWithToken();
    for (let batch = 0; batch < 101; batch += 10)
      await Promise.all(
        Array.from({ length: Math.min(10, 101 - batch) }, (_, i) =>
          provision(many, `p${batch + i}-${process.pid}@bulk.test`),
        ),
      );
    const answer = await many.call<ListResponse>("GET", "/Users?count=1000");
    expect(answer.status).toBe(200);
    expect(answer.body.totalResults).toBe(101);
    expect(answer.body.itemsPerPage).toBe(100);
    expect(answer.body.Resources).toHaveLength(100);
    const rest = await many.call<ListResponse>("GET", "/Users?startIndex=101&count=1000");
    expect(rest.body.Resources).toHaveLength(1);
  });

  it("projects a list with attributes=, always keeping id and schemas", async () => {
    const answer = await directory.call<ListResponse<Record<string, unknown>>>(
      "GET",
      usersWhere('userName eq "alice@acme.test"', "&attributes=userName,name.familyName"),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.Resources).toEqual([{ schemas: [USER], id: idOf.get("alice"), userName: "alice@acme.test" }]);
    const withName = await directory.call<ListResponse<Record<string, unknown>>>(
      "GET",
      usersWhere('userName eq "alice@acme.test"', "&attributes=displayName"),
    );
    expect(withName.body.Resources).toEqual([{ schemas: [USER], id: idOf.get("alice"), displayName: "Alice Archer" }]);
  });

  it("projects a list with excludedAttributes=, never dropping id and schemas", async () => {
    const answer = await directory.call<ListResponse<Record<string, unknown>>>(
      "GET",
      usersWhere('userName eq "bob@acme.test"', "&excludedAttributes=emails,meta,groups,id,schemas"),
    );
    expect(answer.status).toBe(200);
    const [bob] = answer.body.Resources;
    expect(bob).toMatchObject({ schemas: [USER], id: idOf.get("bob"), userName: "bob@acme.test", active: true });
    expect(bob).not.toHaveProperty("emails");
    expect(bob).not.toHaveProperty("meta");
    expect(bob).not.toHaveProperty("groups");
  });

  it("projects a single resource (GET /Users/{id}) with attributes= too (RFC 7644 §3.9)", async () => {
    const answer = await directory.call<Record<string, unknown>>(
      "GET",
      `/Users/${idOf.get("carol")}?attributes=userName`,
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ schemas: [USER], id: idOf.get("carol"), userName: "carol@acme.test" });
  });
});

describe("SCIM 2.0 service: errors", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("refuses a duplicate userName, in any case, with 409 uniqueness", async () => {
    const directory = await organizationWithToken();
    const userName = `${unique("dup")}@acme.test`;
    await provision(directory, userName);
    const again = await directory.call<ScimErrorBody>("POST", "/Users", {
      schemas: [USER],
      userName: userName.toUpperCase(),
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "409",
      scimType: "uniqueness",
    });
    expect(await client.scimUser.count({ where: { org_id: directory.org.id } })).toBe(1);
  });

  it("refuses a duplicate externalId with 409 uniqueness, on POST and on PUT", async () => {
    const directory = await organizationWithToken();
    await provision(directory, `${unique("x")}@acme.test`, { externalId: "00uSAME" });
    const again = await directory.call<ScimErrorBody>("POST", "/Users", {
      schemas: [USER],
      userName: `${unique("y")}@acme.test`,
      externalId: "00uSAME",
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: "409", scimType: "uniqueness" });
    const other = await provision(directory, `${unique("z")}@acme.test`, { externalId: "00uOTHER" });
    const put = await directory.call<ScimErrorBody>("PUT", `/Users/${other.id}`, {
      schemas: [USER],
      userName: other.userName,
      externalId: "00uSAME",
    });
    expect(put.status).toBe(409);
    expect(put.body.scimType).toBe("uniqueness");
  });

  it.each([
    ["a body that is no JSON", "{ not json"],
    ["Operations missing", { schemas: [PATCH_OP] }],
    ["Operations not an array", { schemas: [PATCH_OP], Operations: { op: "replace" } }],
    ["an op that is no SCIM op", { schemas: [PATCH_OP], Operations: [{ op: "upsert", path: "active", value: false }] }],
  ])("refuses a malformed PATCH (%s) with 400 invalidSyntax, changing nothing", async (_, body) => {
    const directory = await organizationWithToken();
    const user = await provision(directory, `${unique("syntax")}@acme.test`);
    const answer = await directory.call<ScimErrorBody>("PATCH", `/Users/${user.id}`, body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body).toMatchObject({ status: "400", scimType: "invalidSyntax" });
    expect((await client.scimUser.findUniqueOrThrow({ where: { id: user.id } })).version).toBe(1);
  });

  it("answers 412 to a stale If-Match on PUT, PATCH and DELETE, and succeeds with the current ETag", async () => {
    const directory = await organizationWithToken();
    const user = await provision(directory, `${unique("etag")}@acme.test`);
    const stale = { "if-match": 'W/"7"' };
    const put = { schemas: [USER], userName: user.userName, displayName: "Put" };
    const patch = patchOf({ op: "replace", path: "displayName", value: "Patched" });
    for (const [method, body] of [
      ["PUT", put],
      ["PATCH", patch],
      ["DELETE", undefined],
    ] as const) {
      const refused = await directory.call<ScimErrorBody>(method, `/Users/${user.id}`, body, stale);
      expect(refused.status, method).toBe(412);
      expect(refused.body.status).toBe("412");
    }
    expect((await client.scimUser.findUniqueOrThrow({ where: { id: user.id } })).version).toBe(1);

    const current = await directory.call<ScimUser>("GET", `/Users/${user.id}`);
    expect(current.headers.get("etag")).toBe('W/"1"');
    const putOk = await directory.call<ScimUser>("PUT", `/Users/${user.id}`, put, { "if-match": 'W/"1"' });
    expect(putOk.status).toBe(200);
    expect(putOk.headers.get("etag")).toBe('W/"2"');
    const patchOk = await directory.call<ScimUser>("PATCH", `/Users/${user.id}`, patch, { "if-match": 'W/"2"' });
    expect(patchOk.status).toBe(200);
    expect(patchOk.headers.get("etag")).toBe('W/"3"');
    expect((await directory.call("DELETE", `/Users/${user.id}`, undefined, { "if-match": 'W/"2"' })).status).toBe(412);
    expect((await directory.call("DELETE", `/Users/${user.id}`, undefined, { "if-match": 'W/"3"' })).status).toBe(204);
  });

  it("answers 412 to a stale If-Match on a group too", async () => {
    const directory = await organizationWithToken();
    const group = await createGroup(directory);
    const refused = await directory.call(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "replace", path: "displayName", value: "X" }),
      {
        "if-match": 'W/"9"',
      },
    );
    expect(refused.status).toBe(412);
    const ok = await directory.call(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "replace", path: "displayName", value: "X" }),
      {
        "if-match": group.meta.version,
      },
    );
    expect(ok.status).toBe(200);
  });

  it.each(["Users", "Groups"])("answers 404 for an unknown %s id and for an id that is no UUID", async (resource) => {
    const directory = await organizationWithToken();
    for (const id of ["0193e6a2-0000-7000-8000-000000000000", "not-a-uuid", "1 OR 1=1"]) {
      const answer = await directory.call<ScimErrorBody>("GET", `/${resource}/${encodeURIComponent(id)}`);
      expect(answer.status, id).toBe(404);
      expect(answer.body).toMatchObject({ status: "404" });
      const patched = await directory.call(
        "PATCH",
        `/${resource}/${encodeURIComponent(id)}`,
        patchOf({ op: "replace", path: "displayName", value: "x" }),
      );
      expect(patched.status, id).toBe(404);
      expect((await directory.call("DELETE", `/${resource}/${encodeURIComponent(id)}`)).status, id).toBe(404);
    }
  });

  it("refuses a revoked token with 401", async () => {
    const directory = await organizationWithToken();
    expect((await directory.call("GET", "/Users")).status).toBe(200);
    const revoked = await request(
      app,
      directory.as,
      "DELETE",
      `/api/v1/organizations/${directory.org.id}/scim-tokens/${directory.tokenId}`,
    );
    expect(revoked.status).toBe(200);
    const answer = await directory.call<ScimErrorBody>("GET", "/Users");
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ status: "401" });
    expect((await directory.call("POST", "/Users", { schemas: [USER], userName: "late@acme.test" })).status).toBe(401);
    expect(await client.scimUser.count({ where: { org_id: directory.org.id } })).toBe(0);
  });

  it("refuses a token of the right shape whose checksum is wrong with 401", async () => {
    const directory = await organizationWithToken();
    const { token } = directory;
    const at = 10;
    const forged = token.slice(0, at) + (token[at] === "A" ? "B" : "A") + token.slice(at + 1);
    expect(forged).toHaveLength(token.length);
    const answer = await scim<ScimErrorBody>(app, forged, "GET", "/Users");
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ status: "401" });
  });
});

describe(
  "SCIM 2.0 service: one organization's token reaches only its own resources",
  { timeout: PROCESS_TEST_TIMEOUT_MS },
  () => {
    let a: Directory;
    let b: Directory;
    let userOfA: ScimUser;
    let groupOfA: ScimGroup;
    beforeAll(async () => {
      [a, b] = [await organizationWithToken("A"), await organizationWithToken("B")];
      userOfA = await provision(a, `${unique("private")}@a.test`);
      groupOfA = await createGroup(a, unique("A team"), [userOfA.id]);
    }, PROCESS_TEST_TIMEOUT_MS);

    const bodies = {
      Users: {
        PUT: () => ({ schemas: [USER], userName: "taken-over@b.test", active: false }),
        PATCH: () => patchOf({ op: "replace", value: { active: false, displayName: "Hijacked" } }),
      },
      Groups: {
        PUT: () => ({ schemas: [GROUP], displayName: "Hijacked", members: [] }),
        PATCH: () => patchOf({ op: "replace", path: "displayName", value: "Hijacked" }),
      },
    };
    const routes = (["Users", "Groups"] as const).flatMap((resource) =>
      (["GET", "PUT", "PATCH", "DELETE"] as const).map((method) => [method, resource] as const),
    );

    it.each(routes)(
      "answers 404 to %s /%s/{id} of another organization, changing nothing",
      async (method, resource) => {
        const id = resource === "Users" ? userOfA.id : groupOfA.id;
        const before = (await a.call("GET", `/${resource}/${id}`)).body;
        const body = method === "PUT" || method === "PATCH" ? bodies[resource][method]() : undefined;
        const answer = await b.call<ScimErrorBody>(method, `/${resource}/${id}`, body);
        expect(answer.status).toBe(404);
        expect(answer.body).toMatchObject({ status: "404" });
        expect((await a.call("GET", `/${resource}/${id}`)).body).toEqual(before);
        const membership = await client.userOrgMembership.findFirstOrThrow({
          where: { org_id: a.org.id, user_id: await platformUserOf(userOfA.id) },
        });
        expect(membership.suspended_at).toBeNull();
      },
    );

    it("never lists another organization's users or groups", async () => {
      const users = await b.call<ListResponse>("GET", "/Users?count=100");
      expect(users.body.Resources?.map((u) => u.id) ?? []).not.toContain(userOfA.id);
      const byName = await b.call<ListResponse>("GET", usersWhere(`userName eq "${userOfA.userName}"`));
      expect(byName.body.totalResults).toBe(0);
      const byId = await b.call<ListResponse>("GET", usersWhere(`id eq "${userOfA.id}"`));
      expect(byId.body.totalResults).toBe(0);
      const groups = await b.call<ListResponse<ScimGroup>>("GET", groupsWhere(`members[value eq "${userOfA.id}"]`));
      expect(groups.body.totalResults).toBe(0);
    });

    it("refuses to make another organization's user a member of its group (400 invalidValue)", async () => {
      const created = await b.call<ScimErrorBody>("POST", "/Groups", {
        schemas: [GROUP],
        displayName: unique("B team"),
        members: [{ value: userOfA.id }],
      });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ status: "400", scimType: "invalidValue" });
      const own = await createGroup(b, unique("B own"));
      const added = await b.call<ScimErrorBody>(
        "PATCH",
        `/Groups/${own.id}`,
        patchOf({ op: "add", path: "members", value: [{ value: userOfA.id }] }),
      );
      expect(added.status).toBe(400);
      expect(added.body.scimType).toBe("invalidValue");
      expect(await client.scimGroupMember.count({ where: { group_id: own.id } })).toBe(0);
    });
  },
);

describe("SCIM 2.0 service: membership", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("links an existing user whose verified email is at a verified domain of the organization, not duplicating them", async () => {
    const directory = await organizationWithToken();
    const domain = await verifiedDomain(directory.org.id);
    const { person, email } = await existingPersonAt(domain);
    const usersBefore = await client.user.count();
    const resource = await provision(directory, email.toUpperCase());
    expect(await platformUserOf(resource.id)).toBe(person.id);
    expect(await client.user.count()).toBe(usersBefore);
    expect(await client.userOrgMembership.count({ where: { user_id: person.id, org_id: directory.org.id } })).toBe(1);
  });

  it("makes a new user for an email at a domain the organization has not verified", async () => {
    const directory = await organizationWithToken();
    const { person, email } = await existingPersonAt(`${unique("elsewhere")}.test`);
    const usersBefore = await client.user.count();
    const resource = await provision(directory, email);
    expect(await platformUserOf(resource.id)).not.toBe(person.id);
    expect(await client.user.count()).toBe(usersBefore + 1);
    expect(
      (await client.user.findUniqueOrThrow({ where: { id: await platformUserOf(resource.id) } })).email,
    ).toBeNull();
  });

  it("refuses with 409 to link a user holding a system role", async () => {
    const directory = await organizationWithToken();
    const domain = await verifiedDomain(directory.org.id);
    const operator = await createUserWith(client, ["svc:system:users:read"]);
    const email = `${operator.username}@${domain}`;
    await client.user.update({ where: { id: operator.id }, data: { email, email_verified_at: new Date() } });
    const answer = await directory.call<ScimErrorBody>("POST", "/Users", {
      schemas: [USER],
      userName: email,
      emails: [{ value: email, type: "work", primary: true }],
    });
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ status: "409", scimType: "uniqueness" });
    expect(await client.userOrgMembership.count({ where: { user_id: operator.id, org_id: directory.org.id } })).toBe(0);
  });

  it("deletes a user the directory made when DELETE leaves them nothing else", async () => {
    const directory = await organizationWithToken();
    const resource = await provision(directory, `${unique("temp")}@acme.test`);
    const userId = await platformUserOf(resource.id);
    expect((await directory.call("DELETE", `/Users/${resource.id}`)).status).toBe(204);
    expect((await client.user.findUniqueOrThrow({ where: { id: userId } })).is_deleted).toBe(true);
    expect(await client.userOrgMembership.count({ where: { user_id: userId } })).toBe(0);
    expect((await directory.call("GET", `/Users/${resource.id}`)).status).toBe(404);
  });

  it("keeps a linked user who has a password when DELETE ends their membership", async () => {
    const directory = await organizationWithToken();
    const domain = await verifiedDomain(directory.org.id);
    const { person, email } = await existingPersonAt(domain);
    // Only this organization: the password alone must keep the account.
    await client.userOrgMembership.deleteMany({ where: { user_id: person.id } });
    await client.userRole.deleteMany({ where: { user_id: person.id } });
    const resource = await provision(directory, email);
    expect((await directory.call("DELETE", `/Users/${resource.id}`)).status).toBe(204);
    expect((await client.user.findUniqueOrThrow({ where: { id: person.id } })).is_deleted).toBe(false);
    expect(await client.userOrgMembership.count({ where: { user_id: person.id, org_id: directory.org.id } })).toBe(0);
  });

  it("keeps a user the directory made who is a member of another organization", async () => {
    const directory = await organizationWithToken();
    const resource = await provision(directory, `${unique("twice")}@acme.test`);
    const userId = await platformUserOf(resource.id);
    const other = await createOrg(client);
    await join(client, userId, other.id);
    expect((await directory.call("DELETE", `/Users/${resource.id}`)).status).toBe(204);
    expect((await client.user.findUniqueOrThrow({ where: { id: userId } })).is_deleted).toBe(false);
    expect(await client.userOrgMembership.count({ where: { user_id: userId, org_id: other.id } })).toBe(1);
  });

  it("provisions again a person the directory deleted and re-assigned", async () => {
    const directory = await organizationWithToken();
    const domain = await verifiedDomain(directory.org.id);
    const email = `${unique("again")}@${domain}`;
    const first = await provision(directory, email);
    expect((await directory.call("DELETE", `/Users/${first.id}`)).status).toBe(204);
    const second = await provision(directory, email);
    const user = await client.user.findUniqueOrThrow({ where: { id: await platformUserOf(second.id) } });
    expect(user.is_deleted).toBe(false);
    expect(await client.userOrgMembership.count({ where: { user_id: user.id, org_id: directory.org.id } })).toBe(1);
  });
});

describe("SCIM 2.0 service: deactivation on two replicas", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("ends the person's console sessions and API keys in the organization within 1 s on both replicas", async () => {
    const directory = await organizationWithToken();
    const domain = await verifiedDomain(directory.org.id);
    const { person, email } = await existingPersonAt(domain);
    const resource = await provision(directory, email);
    expect(await platformUserOf(resource.id)).toBe(person.id);

    const orgPath = `/api/v1/organizations/${directory.org.id}`;
    // What the app answers a signed-in person who is no member of an organization.
    const stranger = await consoleSession(app, (await createOrgAdmin(client, (await createOrg(client)).id)).username);
    const nonMember = (await stranger.fetch(orgPath)).status;
    expect([403, 404]).toContain(nonMember);

    // A key of what the person holds as a member there.
    const key = (
      await createApiKey(readContext(systemActor("test")), person.id, {
        name: "laptop",
        scopes: ["svc:org:read"],
        expires_at: null,
      })
    ).raw_key;
    const reaches = await Promise.all(
      [app, replica].map(async (running, index) => {
        const session = new Browserless(running.baseUrl);
        expect(await session.signIn(person.username, PASSWORD)).toBe(true);
        return [
          { name: `session on replica ${index + 1}`, status: async () => (await session.fetch(orgPath)).status },
          {
            name: `API key on replica ${index + 1}`,
            status: async () => (await running.fetch(orgPath, { headers: { "x-api-key": key } })).status,
          },
        ];
      }),
    );
    const all = reaches.flat();
    for (const { name, status } of all) expect(await status(), name).toBe(200);

    const off = await directory.call<ScimUser>(
      "PATCH",
      `/Users/${resource.id}`,
      patchOf({ op: "Replace", path: "active", value: "False" }),
    );
    expect(off.status).toBe(200);
    const took = await Promise.all(all.map(({ status }) => within(1000, async () => (await status()) === nonMember)));
    const byName = Object.fromEntries(all.map(({ name }, index) => [name, took[index] ?? null]));
    for (const [name, ms] of Object.entries(byName)) measured[`deactivation: ${name} (ms)`] = ms;
    // null: still reaching the organization after 1 s.
    for (const [name, ms] of Object.entries(byName)) expect(ms, `${name}: ${JSON.stringify(byName)}`).not.toBeNull();
    // And it stays lost: no replica answers 200 afterwards.
    for (const { name, status } of all) expect(await status(), name).toBe(nonMember);
  });
});

describe("SCIM 2.0 service: groups mapped to roles", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("lists the organization's directory groups to its admin", async () => {
    const directory = await organizationWithToken();
    const user = await provision(directory, `${unique("m")}@acme.test`);
    const group = await createGroup(directory, unique("Admins"), [user.id]);
    const listed = await request<{
      data: { id: string; display_name: string; member_count: number; role_ids: string[] }[];
    }>(app, directory.as, "GET", `/api/v1/organizations/${directory.org.id}/scim-groups`);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: group.id, display_name: group.displayName, member_count: 1, role_ids: [] }),
    ]);
  });

  it("gives a mapped group's members its role within 1 s, and takes it away within 1 s when they leave the group", async () => {
    const directory = await organizationWithToken();
    const domain = await verifiedDomain(directory.org.id);
    const { person, email } = await existingPersonAt(domain);
    const resource = await provision(directory, email);
    const group = await createGroup(directory, unique("Org admins"), [resource.id]);
    const session = await consoleSession(app, person.username);
    const domains = `/api/v1/organizations/${directory.org.id}/domains`;
    const status = async () => (await session.fetch(domains)).status;
    expect(await status()).toBe(403);

    const mapped = await request<{ role_ids: string[] }>(
      app,
      directory.as,
      "PATCH",
      `/api/v1/organizations/${directory.org.id}/scim-groups/${group.id}`,
      { role_ids: [await roleId(client, "org_admin")] },
    );
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200);
    const granted = await within(1000, async () => (await status()) === 200);
    measured["group role granted (ms)"] = granted;
    expect(granted).not.toBeNull();

    const left = await directory.call(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "Remove", path: `members[value eq "${resource.id}"]` }),
    );
    expect(left.status).toBe(200);
    const revoked = await within(1000, async () => (await status()) === 403);
    measured["group role taken away (ms)"] = revoked;
    expect(revoked).not.toBeNull();
  });

  it("refuses to map a group to a role whose permissions the caller does not hold (403 scope_not_held)", async () => {
    const directory = await organizationWithToken();
    const group = await createGroup(directory, unique("Would-be admins"));
    const scimManager = await createRole(client, "org", ["svc:org:read", "svc:org:scim:read", "svc:org:scim:write"]);
    const caller = await createOrgUser(client, directory.org.id, { id: scimManager.id });
    const as: Caller = { session: await consoleSession(app, caller.username) };
    const path = `/api/v1/organizations/${directory.org.id}/scim-groups/${group.id}`;
    // The caller may map the group to what it holds itself…
    const own = await request(app, as, "PATCH", path, { role_ids: [scimManager.id] });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    // …but not to org_admin.
    const refused = await request<{ code: string }>(app, as, "PATCH", path, {
      role_ids: [await roleId(client, "org_admin")],
    });
    expect(refused).toMatchObject({ status: 403, body: { code: "scope_not_held" } });
    expect((await client.scimGroup.findUniqueOrThrow({ where: { id: group.id } })).role_ids).toEqual([scimManager.id]);
  });
});

describe("SCIM 2.0 service: audit and request log", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  let directory: Directory;
  beforeAll(async () => {
    directory = await organizationWithToken();
    const user = await provision(directory, `${unique("audited")}@acme.test`);
    await directory.call("PATCH", `/Users/${user.id}`, patchOf({ op: "replace", path: "displayName", value: "A" }));
    const group = await createGroup(directory, unique("Audited"));
    await directory.call(
      "PATCH",
      `/Groups/${group.id}`,
      patchOf({ op: "add", path: "members", value: [{ value: user.id }] }),
    );
    await directory.call("DELETE", `/Groups/${group.id}`);
    await directory.call("DELETE", `/Users/${user.id}`);
    // Provisioned again after the deletion (a change), then a refused duplicate and a read (none).
    await directory.call("POST", "/Users", { schemas: [USER], userName: user.userName });
    await directory.call("POST", "/Users", { schemas: [USER], userName: user.userName.toUpperCase() });
    await directory.call("GET", "/Users");
  }, PROCESS_TEST_TIMEOUT_MS);

  it("records each SCIM change as one audit event by actor scim with the token's prefix", async () => {
    const events = await client.auditEvent.findMany({ where: { org_id: directory.org.id, actor_auth: "scim" } });
    const counts: Record<string, number> = {};
    for (const event of events) counts[event.action] = (counts[event.action] ?? 0) + 1;
    expect(counts).toEqual({
      provisionScimUser: 2,
      updateScimUser: 1,
      deprovisionScimUser: 1,
      createScimGroup: 1,
      updateScimGroup: 1,
      deleteScimGroup: 1,
    });
    for (const event of events) {
      expect(event.actor_key_prefix).toBe(directory.prefix);
      expect(directory.token.startsWith(event.actor_key_prefix!)).toBe(true);
      expect(event.actor_user_id).toBeNull();
      expect(event.outcome).toBe("success");
    }
  });

  it("lists the directory's requests with their outcome to the organization's admin", async () => {
    type Row = { method: string; path: string; status: number; scim_type: string | null; token_prefix: string };
    let rows: Row[] = [];
    await expect
      .poll(
        async () => {
          const listed = await request<{ data: Row[] }>(
            app,
            directory.as,
            "GET",
            `/api/v1/organizations/${directory.org.id}/scim-requests?limit=100`,
          );
          rows = listed.body.data ?? [];
          return rows.length;
        },
        { timeout: 5000, interval: 100 },
      )
      .toBe(9);
    const posts = rows.filter((r) => r.method === "POST" && r.path === "/api/scim/v2/Users");
    expect(posts.map((r) => r.status).sort()).toEqual([201, 201, 409]);
    expect(rows.find((r) => r.status === 409)).toMatchObject({
      scim_type: "uniqueness",
      token_prefix: directory.prefix,
    });
    expect(rows.filter((r) => r.method === "DELETE").map((r) => r.status)).toEqual([204, 204]);
    expect(rows.filter((r) => r.method === "GET").map((r) => r.status)).toEqual([200]);
  });

  it("never writes the raw token into the audit trail, the request log, or either replica's logs", async () => {
    // A failing request too: its answer and log lines are where a careless handler would echo the header.
    expect((await scim(app, directory.token, "PATCH", "/Users/not-a-uuid", "{ not json")).status).toBe(400);
    const events = await client.auditEvent.findMany({ where: { org_id: directory.org.id } });
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(directory.token);
    const requests = await client.scimRequest.findMany({ where: { org_id: directory.org.id } });
    expect(requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(requests)).not.toContain(directory.token);
    const listed = await request(app, directory.as, "GET", `/api/v1/organizations/${directory.org.id}/scim-requests`);
    expect(JSON.stringify(listed.body)).not.toContain(directory.token);
    const tokens = await request(app, directory.as, "GET", `/api/v1/organizations/${directory.org.id}/scim-tokens`);
    expect(JSON.stringify(tokens.body)).not.toContain(directory.token);
    // The random part alone (what a log might hold after the prefix is cut off) does not appear either.
    const secret = directory.token.slice(directory.prefix.length);
    for (const running of [app, replica]) {
      expect(running.logs()).not.toContain(directory.token);
      expect(running.logs()).not.toContain(secret);
    }
  });
});

describe("SCIM 2.0 service: figures", () => {
  it("prints what the timing tests measured", () => {
    console.log("SCIM figures", JSON.stringify(measured));
    expect(Object.keys(measured).length).toBeGreaterThan(0);
  });
});
