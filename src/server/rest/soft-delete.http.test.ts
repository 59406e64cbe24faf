import { describe, expect, it } from "vitest";
import { request, type Caller } from "@/test/app";
import { appWithSysAdmin, orgKey } from "@/test/suite";
import { createOrgAdmin, createUser } from "@/test/fixtures";

// Soft deletion over real HTTP: what a delete hides, sys_admins read back with include_deleted and
// restore; nobody else sees it; and a deleted organization takes everything in it along, at once,
// for API keys too.

const { client, app, admin, key: adminKey, session } = await appWithSysAdmin();
const asAdmin: Caller = { session };
const withAdminKey: Caller = { key: adminKey.raw_key };

const call = <T = Record<string, unknown>>(as: Caller, method: string, path: string, body?: unknown) =>
  request<T>(app, as, method, path, body);

let n = 0;
const fresh = (prefix: string) => `${prefix}-${process.pid}-${++n}`;

// The org admin of the organization under test: not a sys_admin, holding every org permission there.
const org = (await call<{ id: string }>(asAdmin, "POST", "/api/v1/organizations", { name: fresh("org"), tier: "pro" }))
  .body;
const orgAdmin = await createOrgAdmin(client, org.id);
const orgAdminKey = await orgKey(orgAdmin.id);
const withOrgAdminKey: Caller = { key: orgAdminKey.raw_key };
const ORG = `/api/v1/organizations/${org.id}`;

const instanceOf = async (orgPath: string) =>
  (
    await call<{ id: string }>(asAdmin, "POST", `${orgPath}/orchestrators`, {
      name: fresh("bot"),
      framework_type: "langgraph",
      mode: "supervisor",
    })
  ).body;

interface Resource {
  name: string;
  /** Creates one; answers its path. */
  create(): Promise<string>;
  /** Who may read it without include_deleted (a non-sys_admin where one may). */
  reader: Caller;
}

const RESOURCES: Resource[] = [
  {
    name: "orchestrator instance",
    create: async () => `${ORG}/orchestrators/${(await instanceOf(ORG)).id}`,
    reader: withOrgAdminKey,
  },
  {
    name: "LLM config",
    create: async () =>
      `${ORG}/llm-configs/${(await call<{ id: string }>(asAdmin, "POST", `${ORG}/llm-configs`, { name: "c", provider: "openai", api_key: "sk-test-12345678" })).body.id}`,
    reader: withOrgAdminKey,
  },
  {
    name: "central point",
    create: async () => {
      const instance = await instanceOf(ORG);
      return `${ORG}/central-points/${(await call<{ id: string }>(asAdmin, "POST", `${ORG}/central-points`, { name: fresh("cp"), orchestrator_id: instance.id })).body.id}`;
    },
    reader: withOrgAdminKey,
  },
  {
    name: "conversation",
    create: async () => {
      const instance = await instanceOf(ORG);
      return `${ORG}/conversations/${(await call<{ id: string }>(withOrgAdminKey, "POST", `${ORG}/conversations`, { instance_id: instance.id, title: "t" })).body.id}`;
    },
    reader: withOrgAdminKey,
  },
  {
    name: "organization setting",
    create: async () => {
      const key = `feature.${fresh("f").replace(/-/g, "_")}`;
      await call(asAdmin, "PUT", `${ORG}/settings/${key}`, { value: true });
      return `${ORG}/settings/${key}`;
    },
    reader: withOrgAdminKey,
  },
  {
    name: "platform setting",
    create: async () => {
      const key = `feature.${fresh("p").replace(/-/g, "_")}`;
      await call(asAdmin, "PUT", `/api/v1/platform-settings/${key}`, { value: 1, value_type: "integer" });
      return `/api/v1/platform-settings/${key}`;
    },
    reader: withAdminKey,
  },
  {
    name: "role",
    create: async () =>
      `/api/v1/roles/${(await call<{ id: string }>(asAdmin, "POST", "/api/v1/roles", { name: fresh("role"), scope: "org", permissions: ["svc:org:read"] })).body.id}`,
    reader: withAdminKey,
  },
  {
    name: "OAuth client",
    create: async () =>
      `/api/v1/oauth-clients/${(await call<{ client_id: string }>(asAdmin, "POST", "/api/v1/oauth-clients", { name: "c", client_type: "public", redirect_uris: ["https://app.example/cb"], allowed_grant_types: ["authorization_code"], allowed_scopes: [] })).body.client_id}`,
    reader: withAdminKey,
  },
];

describe.each(RESOURCES)("a deleted $name", ({ create, reader }) => {
  it("is hidden, read back only by a sys_admin with include_deleted, and restored by one", async () => {
    const path = await create();
    expect((await call(reader, "GET", path)).status).toBe(200);
    const deleted = await call<{ is_deleted: boolean }>(asAdmin, "DELETE", path);
    expect(deleted).toMatchObject({ status: 200, body: { is_deleted: true } });

    expect((await call(reader, "GET", path)).status).toBe(404);
    expect((await call(asAdmin, "GET", path)).status).toBe(404);
    expect(await call(asAdmin, "GET", `${path}?include_deleted=true`)).toMatchObject({
      status: 200,
      body: { is_deleted: true },
    });
    if (reader === withOrgAdminKey) {
      expect(await call(reader, "GET", `${path}?include_deleted=true`)).toMatchObject({
        status: 403,
        body: { code: "forbidden" },
      });
      expect((await call(reader, "POST", `${path}/restore`)).status).toBe(403);
    }

    expect(await call(asAdmin, "POST", `${path}/restore`)).toMatchObject({ status: 200, body: { is_deleted: false } });
    expect((await call(reader, "GET", path)).status).toBe(200);
    // Restoring a live record changes nothing and says so.
    expect(await call(asAdmin, "POST", `${path}/restore`)).toMatchObject({ status: 200, body: { is_deleted: false } });
  });
});

describe("restoring", () => {
  it("answers 404 for what never existed", async () => {
    const missing = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b";
    expect((await call(asAdmin, "POST", `${ORG}/orchestrators/${missing}/restore`)).status).toBe(404);
    expect((await call(asAdmin, "POST", "/api/v1/platform-settings/no.such.key/restore")).status).toBe(404);
  });

  it("keeps the tier's quota: a restored instance counts like a new one", async () => {
    const small = (
      await call<{ id: string }>(asAdmin, "POST", "/api/v1/organizations", { name: fresh("free"), tier: "free" })
    ).body;
    const path = `/api/v1/organizations/${small.id}`;
    const first = await instanceOf(path);
    await instanceOf(path);
    await call(asAdmin, "DELETE", `${path}/orchestrators/${first.id}`);
    await instanceOf(path);
    const refused = await call(asAdmin, "POST", `${path}/orchestrators/${first.id}/restore`);
    expect(refused).toMatchObject({ status: 403, body: { code: "quota_exceeded" } });
    expect(await call(asAdmin, "GET", `${path}/orchestrators/${first.id}?include_deleted=true`)).toMatchObject({
      body: { is_deleted: true },
    });
  });

  it("refuses a central point whose name a live one took meanwhile (409)", async () => {
    const instance = await instanceOf(ORG);
    const name = fresh("handle");
    const first = (
      await call<{ id: string }>(asAdmin, "POST", `${ORG}/central-points`, { name, orchestrator_id: instance.id })
    ).body;
    await call(asAdmin, "DELETE", `${ORG}/central-points/${first.id}`);
    expect((await call(asAdmin, "POST", `${ORG}/central-points`, { name, orchestrator_id: instance.id })).status).toBe(
      201,
    );
    expect(await call(asAdmin, "POST", `${ORG}/central-points/${first.id}/restore`)).toMatchObject({
      status: 409,
      body: { code: "conflict" },
    });
  });
});

describe("a deleted organization", () => {
  it("takes its children along for everyone but a sys_admin with include_deleted, and its members' keys lose it at once", async () => {
    const doomed = (await call<{ id: string }>(asAdmin, "POST", "/api/v1/organizations", { name: fresh("doomed") }))
      .body;
    const path = `/api/v1/organizations/${doomed.id}`;
    const member = await createOrgAdmin(client, doomed.id);
    const memberKey: Caller = {
      key: (await orgKey(member.id, "m")).raw_key,
    };
    const instance = await instanceOf(path);
    const child = `${path}/orchestrators/${instance.id}`;
    // The key's session is cached by now: the deletion must reach it anyway.
    const before = await call<{ organizations: { id: string }[] }>(memberKey, "GET", "/api/v1/me");
    expect(before.body.organizations.map((o) => o.id)).toContain(doomed.id);
    expect((await call(memberKey, "GET", child)).status).toBe(200);

    expect((await call(asAdmin, "DELETE", path)).status).toBe(200);

    const after = await call<{ organizations: { id: string }[] }>(memberKey, "GET", "/api/v1/me");
    expect(after.body.organizations.map((o) => o.id)).not.toContain(doomed.id);
    expect((await call(memberKey, "GET", child)).status).toBe(404);
    // A sys_admin holds every permission everywhere, yet sees the children only on request.
    for (const caller of [asAdmin, withAdminKey]) {
      expect((await call(caller, "GET", child)).status).toBe(404);
      expect((await call(caller, "GET", `${path}/orchestrators`)).status).toBe(404);
      expect((await call(caller, "PATCH", child, { name: "renamed" })).status).toBe(404);
    }
    expect(await call(asAdmin, "GET", `${child}?include_deleted=true`)).toMatchObject({
      status: 200,
      body: { id: instance.id },
    });
    expect(await call(asAdmin, "GET", `${path}/orchestrators?include_deleted=true`)).toMatchObject({
      status: 200,
      body: { data: [{ id: instance.id }] },
    });

    expect((await call(asAdmin, "POST", `${path}/restore`)).status).toBe(200);
    expect((await call(memberKey, "GET", child)).status).toBe(200);
    expect(
      (await call<{ organizations: { id: string }[] }>(memberKey, "GET", "/api/v1/me")).body.organizations.map(
        (o) => o.id,
      ),
    ).toContain(doomed.id);
  });
});

describe("every list", () => {
  it("pages platform settings, organization settings, LLM configs, grants and identities with next_cursor", async () => {
    // The longest key a setting may have makes the longest cursor a list gives (343 characters).
    const longest = `page.${"z".repeat(250)}`;
    for (const key of ["page.a", "page.b", "page.c", longest]) {
      await call(asAdmin, "PUT", `/api/v1/platform-settings/${key}`, { value: key, value_type: "string" });
      await call(asAdmin, "PUT", `${ORG}/settings/${key}`, { value: key });
    }
    const linked = await createUser(client);
    for (const provider of ["github", "google", "oauth2"])
      await client.userOauthIdentity.create({
        data: { user_id: linked.id, provider, provider_user_id: `${provider}-${linked.id}` },
      });
    const identities = `/api/v1/users/${linked.id}/identities`;
    for (const path of [
      "/api/v1/platform-settings",
      `${ORG}/settings`,
      `${ORG}/llm-configs`,
      `/api/v1/users/${admin.id}/roles`,
      identities,
    ]) {
      const seen: Record<string, unknown>[] = [];
      let pages = 0;
      let cursor: string | null = null;
      let longestCursor = 0;
      do {
        const page: { body: { data: Record<string, unknown>[]; next_cursor: string | null } } = await call(
          asAdmin,
          "GET",
          `${path}?limit=1${cursor ? `&cursor=${cursor}` : ""}`,
        );
        expect(page.body.data.length).toBeLessThanOrEqual(1);
        seen.push(...page.body.data);
        pages += 1;
        cursor = page.body.next_cursor;
        longestCursor = Math.max(longestCursor, cursor?.length ?? 0);
      } while (cursor && seen.length < 500);
      const all = await call<{ data: Record<string, unknown>[] }>(asAdmin, "GET", `${path}?limit=100`);
      // Every item once, in the order of the whole list.
      expect(seen, path).toEqual(all.body.data);
      expect(new Set(seen.map((item) => JSON.stringify(item))).size, path).toBe(seen.length);
      // Passed back like any other, though longer than the 200 characters a cursor once could be.
      if (path === "/api/v1/platform-settings") expect(longestCursor).toBeGreaterThan(300);
      if (path === identities) {
        expect(pages).toBe(3);
        expect(seen.map((item) => item.provider).sort()).toEqual(["github", "google", "oauth2"]);
      }
    }
    expect(await call(asAdmin, "GET", "/api/v1/platform-settings?cursor=not-a-cursor")).toMatchObject({
      status: 400,
      body: { errors: [{ path: "cursor" }] },
    });
  });
});
