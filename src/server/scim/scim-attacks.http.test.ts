import { describe, expect, it } from "vitest";
import { SCIM_RATE_LIMIT } from "@/lib/scim";
import { PROCESS_TEST_TIMEOUT_MS, request, type Caller } from "@/test/app";
import { createOrg, createOrgAdmin } from "@/test/fixtures";
import { appOnOwnDatabase, consoleSession } from "@/test/suite";

// What an attacker holding (or guessing at) a SCIM token tries: bodies no directory sends, filters
// built to break the query, prototype pollution through PATCH paths, tokens where they do not
// belong, and more requests than a directory makes. Each is refused with a SCIM error, never a
// fault, and leaves nothing written.

const { client, app } = await appOnOwnDatabase();

async function tokenOfNewOrganization() {
  // The enterprise tier: the free tier's five members would refuse the later provisioning.
  const org = await client.organization.update({
    where: { id: (await createOrg(client)).id },
    data: { subscription_tier: "enterprise" },
  });
  const admin = await createOrgAdmin(client, org.id);
  const as: Caller = { session: await consoleSession(app, admin.username) };
  const created = await request<{ token: string }>(app, as, "POST", `/api/v1/organizations/${org.id}/scim-tokens`, {
    name: "directory",
  });
  return { org, token: created.body.token };
}

const { org, token } = await tokenOfNewOrganization();

function scim(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  return app.fetch(`/api/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json", ...headers },
    body,
  });
}

const user = (userName: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, ...extra });

const provisioned = () => client.scimUser.count({ where: { org_id: org.id } });

describe("SCIM under attack", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it.each([
    ["not JSON", "{userName:", 400],
    ["a JSON array", "[]", 400],
    ["no userName", JSON.stringify({ schemas: [] }), 400],
    ["a userName of 256 characters", user("a".repeat(256)), 400],
    ["NUL in a value", user("nul\u0000@acme.test"), 400],
    ["NUL in a key", JSON.stringify({ userName: "key@acme.test", ["x\u0000"]: 1 }), 400],
    ["nesting 10,000 deep", `{"userName":"deep@acme.test","x":${"[".repeat(10_000)}${"]".repeat(10_000)}}`, 400],
    ["an email that is none", user("mail@acme.test", { emails: [{ value: "not an email" }] }), 400],
    ["active as a number", user("num@acme.test", { active: 1 }), 400],
  ])("refuses a user with %s, writing nothing", async (_name, body, status) => {
    const before = await provisioned();
    const answer = await scim("POST", "/Users", body);
    expect(answer.status).toBe(status);
    expect(answer.headers.get("content-type")).toContain("application/scim+json");
    expect(await provisioned()).toBe(before);
  });

  it("refuses a body over 1 MiB with 413", async () => {
    const answer = await scim("POST", "/Users", user("big@acme.test", { displayName: "x".repeat(1_100_000) }));
    expect(answer.status).toBe(413);
  });

  it.each([
    ['userName eq "x" or 1 eq 1', "an attribute that is no attribute"],
    ['password eq "x"', "an attribute we do not hold"],
    ['userName eq "x"'.padEnd(3000, " "), "a filter over 2,048 characters"],
    [Array.from({ length: 60 }, (_, i) => `userName eq "${i}"`).join(" or "), "60 clauses"],
    ['userName co "%"; DROP TABLE users; --', "SQL that is no filter"],
    ['meta.created gt "yesterday"', "a date that is none"],
    ['active eq "maybe"', "a boolean that is none"],
  ])("answers %s (%s) with 400 invalidFilter", async (filter) => {
    const answer = await scim("GET", `/Users?filter=${encodeURIComponent(filter)}`);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ scimType: "invalidFilter" });
  });

  it("takes LIKE's wildcards in a filter as the characters they are", async () => {
    await scim("POST", "/Users", user("percent@acme.test"));
    const all = await (await scim("GET", `/Users?filter=${encodeURIComponent('userName co "%"')}`)).json();
    expect(all).toMatchObject({ totalResults: 0 });
    const one = await (await scim("GET", `/Users?filter=${encodeURIComponent('userName sw "perc"')}`)).json();
    expect(one).toMatchObject({ totalResults: 1 });
  });

  it("does not let a PATCH path reach an object's prototype", async () => {
    const created = (await (await scim("POST", "/Users", user("proto@acme.test"))).json()) as { id: string };
    for (const path of ["__proto__.polluted", "constructor.prototype.polluted", "__proto__"]) {
      const answer = await scim(
        "PATCH",
        `/Users/${created.id}`,
        JSON.stringify({
          schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
          Operations: [{ op: "add", path, value: { polluted: true } }],
        }),
      );
      expect(answer.status, path).toBeLessThan(500);
    }
    const other = (await (await scim("POST", "/Users", user("after-proto@acme.test"))).json()) as Record<
      string,
      unknown
    >;
    expect(other.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("lets one of ten changes sent at once with the same If-Match through, and answers the rest 412", async () => {
    const created = (await (await scim("POST", "/Users", user("race@acme.test"))).json()) as { id: string };
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        scim(
          "PATCH",
          `/Users/${created.id}`,
          JSON.stringify({
            schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            Operations: [{ op: "replace", path: "displayName", value: `racer ${i}` }],
          }),
          { "if-match": 'W/"1"' },
        ).then((r) => r.status),
      ),
    );
    expect(answers.sort()).toEqual([200, ...Array<number>(9).fill(412)]);
    expect((await client.scimUser.findUnique({ where: { id: created.id } }))?.version).toBe(2);
  });

  it("provisions one of ten people sent at once with the same userName, and answers the rest 409", async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        scim("POST", "/Users", user(i % 2 ? "twin@acme.test" : "TWIN@acme.test")).then((r) => r.status),
      ),
    );
    expect(answers.sort()).toEqual([201, ...Array<number>(9).fill(409)]);
    expect(
      await client.scimUser.count({
        where: { org_id: org.id, user_name: { equals: "twin@acme.test", mode: "insensitive" } },
      }),
    ).toBe(1);
  });

  it("refuses the token anywhere but the Authorization header, and an API key's header", async () => {
    const inQuery = await app.fetch(`/api/scim/v2/Users?access_token=${token}`);
    expect(inQuery.status).toBe(401);
    const asKey = await app.fetch("/api/scim/v2/Users", { headers: { "x-api-key": token } });
    expect(asKey.status).toBe(401);
    const basic = await app.fetch("/api/scim/v2/Users", {
      headers: { authorization: `Basic ${Buffer.from(`x:${token}`).toString("base64")}` },
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get("www-authenticate")).toContain("Bearer");
  });

  it("answers 429 with Retry-After past the token's limit, in SCIM's error shape", async () => {
    const own = await tokenOfNewOrganization();
    const call = () =>
      app.fetch("/api/scim/v2/ServiceProviderConfig", { headers: { authorization: `Bearer ${own.token}` } });
    const statuses: number[] = [];
    for (let sent = 0; sent < SCIM_RATE_LIMIT.requests; sent += 50)
      statuses.push(...(await Promise.all(Array.from({ length: 50 }, () => call().then((r) => r.status)))));
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const over = await call();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await over.json()).toMatchObject({ status: "429" });
    // Another organization's token is counted on its own.
    expect((await scim("GET", "/ServiceProviderConfig")).status).toBe(200);
  });
});
