import { describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, request, type Caller } from "@/test/app";
import { createOrg, createOrgAdmin, createRole, grant, join, createUser, roleId } from "@/test/fixtures";
import { appOnOwnDatabase, consoleSession } from "@/test/suite";

// The SCIM service as Entra ID and Okta drive it, in the request shapes each documents: Entra's
// capitalized operations, string booleans and enterprise extension, Okta's whole-user PUT and
// path-less PATCH, the filters both send; tokens that reach one organization only, over every
// route; and directory groups mapped to roles by the organization's admin.

const { client, app } = await appOnOwnDatabase();

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

interface Directory {
  orgId: string;
  admin: Caller;
  call<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: T }>;
}

let organizations = 0;
async function directoryOfNewOrganization(): Promise<Directory> {
  const org = await createOrg(client);
  const admin = await createOrgAdmin(client, org.id);
  const as: Caller = { session: await consoleSession(app, admin.username) };
  const made = await request<{ token: string }>(app, as, "POST", `/api/v1/organizations/${org.id}/scim-tokens`, {
    name: `directory ${(organizations += 1)}`,
  });
  return {
    orgId: org.id,
    admin: as,
    async call(method, path, body, headers = {}) {
      const response = await app.fetch(`/api/scim/v2${path}`, {
        method,
        headers: {
          authorization: `Bearer ${made.body.token}`,
          ...(body !== undefined && { "content-type": "application/scim+json" }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
  };
}

const filtered = (filter: string) => `/Users?filter=${encodeURIComponent(filter)}`;
const patch = (...Operations: object[]) => ({ schemas: [PATCH_OP], Operations });
type ScimUser = { id: string; userName: string; active: boolean; displayName?: string; name?: Record<string, string> };
type ListResponse = { totalResults: number; Resources: ScimUser[]; itemsPerPage: number; startIndex: number };

describe("Entra ID", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("checks, creates, updates with Replace and string booleans, and finds by externalId", async () => {
    const entra = await directoryOfNewOrganization();
    const userName = `ada.lovelace@entra-${process.pid}.test`;
    expect((await entra.call<ListResponse>("GET", filtered(`userName eq "${userName}"`))).body).toMatchObject({
      totalResults: 0,
      Resources: [],
    });
    const created = await entra.call<ScimUser>("POST", "/Users", {
      schemas: [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "8a5c3b1e-0f1d-4b8e-9d0a-entra",
      userName,
      active: true,
      displayName: "Ada Lovelace",
      title: "Analyst",
      preferredLanguage: "en-GB",
      emails: [{ primary: true, type: "work", value: userName }],
      name: { formatted: "Ada Lovelace", familyName: "Lovelace", givenName: "Ada" },
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "Engines" },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toMatch(new RegExp(`/api/scim/v2/Users/${created.body.id}$`));
    expect(created.body).toMatchObject({ userName, active: true, name: { givenName: "Ada", familyName: "Lovelace" } });

    const replaced = await entra.call<ScimUser>(
      "PATCH",
      `/Users/${created.body.id}`,
      patch(
        { op: "Replace", path: "displayName", value: "Ada King" },
        { op: "Add", path: "name.familyName", value: "King" },
        { op: "Replace", path: "active", value: "False" },
      ),
    );
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ displayName: "Ada King", active: false, name: { familyName: "King" } });
    expect(replaced.headers.get("etag")).toBe('W/"2"');
    const back = await entra.call<ScimUser>(
      "PATCH",
      `/Users/${created.body.id}`,
      patch({ op: "Replace", path: "active", value: "True" }),
    );
    expect(back.body.active).toBe(true);

    const byExternalId = await entra.call<ListResponse>(
      "GET",
      filtered('externalId eq "8a5c3b1e-0f1d-4b8e-9d0a-entra"'),
    );
    expect(byExternalId.body.Resources.map((u) => u.id)).toEqual([created.body.id]);
  });

  it("adds and removes group members the way Entra sends them, and checks membership with a filter", async () => {
    const entra = await directoryOfNewOrganization();
    const users = await Promise.all(
      ["a", "b"].map(
        async (name) =>
          (await entra.call<ScimUser>("POST", "/Users", { schemas: [USER], userName: `${name}@entra-groups.test` }))
            .body,
      ),
    );
    const group = await entra.call<{ id: string; members: unknown[] }>("POST", "/Groups", {
      schemas: [GROUP],
      displayName: "Engineering",
      externalId: "grp-1",
      members: [],
    });
    expect(group.status).toBe(201);
    const added = await entra.call<{ members: { value: string }[] }>(
      "PATCH",
      `/Groups/${group.body.id}`,
      patch({ op: "Add", path: "members", value: users.map((u) => ({ value: u.id })) }),
    );
    expect(added.body.members.map((m) => m.value).sort()).toEqual(users.map((u) => u.id).sort());
    const check = `/Groups?filter=${encodeURIComponent(`id eq "${group.body.id}" and members[value eq "${users[0]!.id}"]`)}&excludedAttributes=members`;
    const found = await entra.call<{ totalResults: number; Resources: Record<string, unknown>[] }>("GET", check);
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0]).not.toHaveProperty("members");

    await entra.call(
      "PATCH",
      `/Groups/${group.body.id}`,
      patch({ op: "Remove", path: `members[value eq "${users[0]!.id}"]` }),
    );
    expect((await entra.call<{ totalResults: number }>("GET", check)).body.totalResults).toBe(0);
    const user = await entra.call<{ groups: { value: string }[] }>("GET", `/Users/${users[1]!.id}`);
    expect(user.body.groups.map((g) => g.value)).toEqual([group.body.id]);
  });
});

describe("Okta", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("PUTs the whole user, deactivates with a path-less PATCH, and finds by the filters it sends", async () => {
    const okta = await directoryOfNewOrganization();
    const userName = `grace@okta-${process.pid}.test`;
    const created = await okta.call<ScimUser>("POST", "/Users", {
      schemas: [USER],
      userName,
      name: { givenName: "Grace", familyName: "Hopper" },
      emails: [{ primary: true, value: userName, type: "work" }],
      displayName: "Grace Hopper",
      locale: "en-US",
      externalId: "00u1okta",
      groups: [],
      password: "directories send these; we keep none",
      active: true,
    });
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body)).not.toContain("directories send these");

    const put = await okta.call<ScimUser>(
      "PUT",
      `/Users/${created.body.id}`,
      {
        schemas: [USER],
        id: created.body.id,
        externalId: "00u1okta",
        userName,
        name: { givenName: "Grace", familyName: "Murray Hopper" },
        emails: [{ primary: true, value: userName, type: "work" }],
        active: true,
      },
      { "if-match": 'W/"1"' },
    );
    expect(put.status).toBe(200);
    expect(put.body.name?.familyName).toBe("Murray Hopper");
    // A PUT replaces the resource: what it leaves out is cleared.
    expect(put.body.displayName).toBeUndefined();
    const stale = await okta.call(
      "PUT",
      `/Users/${created.body.id}`,
      { schemas: [USER], userName },
      { "if-match": 'W/"1"' },
    );
    expect(stale.status).toBe(412);

    for (const filter of [
      `userName eq "${userName.toUpperCase()}"`,
      'externalId eq "00u1okta"',
      `emails[type eq "work"].value eq "${userName}"`,
      `emails[type eq "work" and value co "@okta-${process.pid}"]`,
      `(userName sw "grace" and active eq true) or displayName eq "nobody"`,
      `not (active eq false) and meta.lastModified gt "2020-01-01T00:00:00Z"`,
      "name.familyName pr",
    ])
      expect((await okta.call<ListResponse>("GET", filtered(filter))).body.totalResults, filter).toBe(1);
    for (const filter of [
      'externalId eq "00U1OKTA"',
      `emails[type eq "home"].value eq "${userName}"`,
      `userName ne "${userName}"`,
    ])
      expect((await okta.call<ListResponse>("GET", filtered(filter))).body.totalResults, filter).toBe(0);

    const off = await okta.call<ScimUser>(
      "PATCH",
      `/Users/${created.body.id}`,
      patch({ op: "replace", value: { active: false } }),
    );
    expect(off.body.active).toBe(false);
    const events = await client.auditEvent.findMany({
      where: { org_id: okta.orgId, actor_auth: "scim" },
      orderBy: { occurred_at: "asc" },
    });
    expect(events.map((e) => e.action)).toEqual(["provisionScimUser", "updateScimUser", "updateScimUser"]);
    expect(events.every((e) => e.actor_key_prefix?.startsWith("scim_"))).toBe(true);
  });

  it("pages with startIndex and count, and projects with attributes and excludedAttributes", async () => {
    const okta = await directoryOfNewOrganization();
    // The free tier holds 5 members: the admin and these 4.
    for (let i = 1; i <= 4; i++) {
      const made = await okta.call("POST", "/Users", { schemas: [USER], userName: `p${i}@paging.test` });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const page = await okta.call<ListResponse>("GET", "/Users?startIndex=2&count=2&attributes=userName");
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((u) => Object.keys(u).sort())).toEqual([
      ["id", "schemas", "userName"],
      ["id", "schemas", "userName"],
    ]);
    const all = await okta.call<ListResponse>("GET", "/Users?count=1000&excludedAttributes=emails,meta");
    expect(all.body.itemsPerPage).toBe(4);
    expect(all.body.Resources[0]).not.toHaveProperty("emails");
    expect(all.body.Resources[0]).not.toHaveProperty("meta");
    expect((await okta.call<ListResponse>("GET", "/Users?count=0")).body).toMatchObject({
      totalResults: 4,
      Resources: [],
    });
    const fifth = await okta.call("POST", "/Users", { schemas: [USER], userName: "p5@paging.test" });
    expect(fifth.status).toBe(403);
  });
});

describe("one organization's token", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("reaches none of another organization's users or groups, on any route", async () => {
    const owner = await directoryOfNewOrganization();
    const intruder = await directoryOfNewOrganization();
    const user = (
      await owner.call<ScimUser>("POST", "/Users", { schemas: [USER], userName: `own@isolation-${process.pid}.test` })
    ).body;
    const group = (
      await owner.call<{ id: string }>("POST", "/Groups", {
        schemas: [GROUP],
        displayName: "Own",
        members: [{ value: user.id }],
      })
    ).body;
    const bodies: Record<string, unknown> = {
      PUT: { schemas: [USER, GROUP], userName: "taken@isolation.test", displayName: "Taken" },
      PATCH: patch({ op: "replace", path: "displayName", value: "Taken" }),
    };
    for (const [kind, id] of [
      ["Users", user.id],
      ["Groups", group.id],
    ] as const)
      for (const method of ["GET", "PUT", "PATCH", "DELETE"]) {
        const answer = await intruder.call(method, `/${kind}/${id}`, bodies[method]);
        expect(answer.status, `${method} /${kind}`).toBe(404);
      }
    expect((await intruder.call<ListResponse>("GET", "/Users")).body.totalResults).toBe(0);
    expect((await intruder.call<ListResponse>("GET", "/Groups")).body.totalResults).toBe(0);
    const stolen = await intruder.call("POST", "/Groups", {
      schemas: [GROUP],
      displayName: "Stolen",
      members: [{ value: user.id }],
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body).toMatchObject({ scimType: "invalidValue" });
    // Nothing of the owner's changed.
    expect((await owner.call<ScimUser>("GET", `/Users/${user.id}`)).body).toMatchObject({
      userName: user.userName,
      active: true,
    });
    expect((await owner.call<{ members: unknown[] }>("GET", `/Groups/${group.id}`)).body.members).toHaveLength(1);
  });
});

describe("groups mapped to roles", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("give their members the roles in the organization, and refuse a role the admin does not hold", async () => {
    const directory = await directoryOfNewOrganization();
    const domain = `mapped-${process.pid}.test`;
    await client.organizationDomain.create({
      data: { org_id: directory.orgId, domain, token: "t", status: "verified", verified_at: new Date() },
    });
    const person = await createUser(client);
    await client.user.update({
      where: { id: person.id },
      data: { email: `lin@${domain}`, email_verified_at: new Date() },
    });
    const resource = (
      await directory.call<ScimUser>("POST", "/Users", {
        schemas: [USER],
        userName: `lin@${domain}`,
        emails: [{ value: `lin@${domain}` }],
      })
    ).body;
    const group = (
      await directory.call<{ id: string }>("POST", "/Groups", {
        schemas: [GROUP],
        displayName: "Admins",
        members: [{ value: resource.id }],
      })
    ).body;
    const session: Caller = { session: await consoleSession(app, person.username) };
    const domains = `/api/v1/organizations/${directory.orgId}/domains`;
    const before = await request(app, session, "GET", domains);
    expect(before.status, JSON.stringify(before.body)).toBe(403);

    const listed = await request<{ data: { id: string; member_count: number }[] }>(
      app,
      directory.admin,
      "GET",
      `/api/v1/organizations/${directory.orgId}/scim-groups`,
    );
    expect(listed.body.data).toEqual([expect.objectContaining({ id: group.id, member_count: 1 })]);
    const mapped = await request(
      app,
      directory.admin,
      "PATCH",
      `/api/v1/organizations/${directory.orgId}/scim-groups/${group.id}`,
      {
        role_ids: [await roleId(client, "org_admin")],
      },
    );
    expect(mapped.status).toBe(200);
    expect((await request(app, session, "GET", domains)).status).toBe(200);

    // Leaving the group takes the role away.
    await directory.call(
      "PATCH",
      `/Groups/${group.id}`,
      patch({ op: "remove", path: `members[value eq "${resource.id}"]` }),
    );
    expect((await request(app, session, "GET", domains)).status).toBe(403);

    // A member who may map groups but does not hold org_admin's permissions cannot hand them out.
    const mapper = await createUser(client);
    await join(client, mapper.id, directory.orgId);
    const mapperRole = await createRole(client, "org", ["svc:org:read", "svc:org:scim:read", "svc:org:scim:write"]);
    await grant(client, mapper.id, mapperRole.id, directory.orgId);
    const refused = await request(
      app,
      { session: await consoleSession(app, mapper.username) },
      "PATCH",
      `/api/v1/organizations/${directory.orgId}/scim-groups/${group.id}`,
      { role_ids: [] },
    );
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "scope_not_held" });
    const others = (
      await directory.call<{ id: string }>("POST", "/Groups", { schemas: [GROUP], displayName: "Others" })
    ).body;
    const mapperSession: Caller = { session: await consoleSession(app, mapper.username) };
    const othersPath = `/api/v1/organizations/${directory.orgId}/scim-groups/${others.id}`;
    const escalate = await request(app, mapperSession, "PATCH", othersPath, {
      role_ids: [await roleId(client, "org_admin")],
    });
    expect(escalate.status).toBe(403);
    expect((await client.scimGroup.findUnique({ where: { id: others.id } }))?.role_ids).toEqual([]);
    // What the mapper holds, it may hand out.
    expect((await request(app, mapperSession, "PATCH", othersPath, { role_ids: [mapperRole.id] })).status).toBe(200);
    expect((await client.scimGroup.findUnique({ where: { id: group.id } }))?.role_ids).toEqual([
      await roleId(client, "org_admin"),
    ]);
  });
});
