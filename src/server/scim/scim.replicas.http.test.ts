import { describe, expect, it } from "vitest";
import { Browserless, startReplicas, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, PASSWORD, seedRoles } from "@/test/fixtures";
import { orgKey } from "@/test/suite";

// Deactivation as an enterprise relies on it: a person the directory sets inactive loses the
// organization within a second on every replica — their live console session and their API keys
// alike — and gets it back when set active again. Two app processes on one database and this
// machine's Redis, as behind a load balancer; the directory calls one, the person the other.

const { client, url } = await testDatabase();
await seedRoles(client);
const [a, b] = await startReplicas(url);
const replicas = [a, b];

const org = await createOrg(client);
const admin = await createOrgAdmin(client, org.id);
const adminSession = new Browserless(a.baseUrl);
await adminSession.signIn(admin.username, PASSWORD);
const token = (
  (await (
    await adminSession.fetch(`/api/v1/organizations/${org.id}/scim-tokens`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Okta" }),
    })
  ).json()) as { token: string }
).token;

const domain = `replicas-${process.pid}.test`;
await client.organizationDomain.create({
  data: { org_id: org.id, domain, token: "t", status: "verified", verified_at: new Date() },
});

/** A person with a password and a verified email at the organization's domain, linked by the directory. */
async function linkedPerson(name: string) {
  const person = await createOrgAdmin(client, (await createOrg(client)).id);
  const email = `${name}@${domain}`;
  await client.user.update({ where: { id: person.id }, data: { email, email_verified_at: new Date() } });
  const created = await directory("POST", "/Users", {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    userName: email,
    emails: [{ value: email, type: "work", primary: true }],
  });
  const resource = (await created.json()) as { id: string };
  expect(created.status).toBe(201);
  return { person, resourceId: resource.id };
}

function directory(method: string, path: string, body?: unknown) {
  return a.fetch(`/api/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

const setActive = (resourceId: string, active: boolean) =>
  directory("PATCH", `/Users/${resourceId}`, {
    schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    Operations: [{ op: "replace", value: { active } }],
  });

/** Polls `reach` every 50 ms for at most a second until it answers `status`; answers how long it took, or null. */
async function within(status: number, reach: () => Promise<number>): Promise<number | null> {
  const started = Date.now();
  while (Date.now() - started <= 1000) {
    if ((await reach()) === status) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

const orgPath = `/api/v1/organizations/${org.id}`;

describe("a directory deactivating a person, across two replicas", () => {
  it("ends the person's session and keys in the organization within a second everywhere, and gives them back", async () => {
    const { person, resourceId } = await linkedPerson("ada");
    const sessions = await Promise.all(
      replicas.map(async (replica: RunningApp) => {
        const session = new Browserless(replica.baseUrl);
        expect(await session.signIn(person.username, PASSWORD)).toBe(true);
        return session;
      }),
    );
    const key = (await orgKey(person.id)).raw_key;
    const reaches = replicas.flatMap((replica, index) => [
      { name: `session on replica ${index + 1}`, reach: async () => (await sessions[index]!.fetch(orgPath)).status },
      {
        name: `key on replica ${index + 1}`,
        reach: async () => (await replica.fetch(orgPath, { headers: { "x-api-key": key } })).status,
      },
    ]);
    // Everyone has the person's grants cached as a member.
    for (const { name, reach } of reaches) expect(await reach(), name).toBe(200);

    expect((await setActive(resourceId, false)).status).toBe(200);
    const lost = await Promise.all(reaches.map(({ reach }) => within(404, reach)));
    expect(
      lost.every((ms) => ms !== null),
      JSON.stringify(lost),
    ).toBe(true);
    // The person's other organization is untouched.
    const elsewhere = await client.userOrgMembership.findFirst({
      where: { user_id: person.id, NOT: { org_id: org.id } },
    });
    expect((await sessions[1]!.fetch(`/api/v1/organizations/${elsewhere!.org_id}`)).status).toBe(200);

    expect((await setActive(resourceId, true)).status).toBe(200);
    const back = await Promise.all(reaches.map(({ reach }) => within(200, reach)));
    expect(
      back.every((ms) => ms !== null),
      JSON.stringify(back),
    ).toBe(true);
  });

  it("ends the membership on DELETE within a second everywhere", async () => {
    const { person, resourceId } = await linkedPerson("grace");
    const key = (await orgKey(person.id)).raw_key;
    for (const replica of replicas)
      expect((await replica.fetch(orgPath, { headers: { "x-api-key": key } })).status).toBe(200);
    expect((await directory("DELETE", `/Users/${resourceId}`)).status).toBe(204);
    for (const replica of replicas)
      expect(
        await within(404, async () => (await replica.fetch(orgPath, { headers: { "x-api-key": key } })).status),
      ).not.toBeNull();
    // The person had a password and another organization: the user stays.
    expect(await client.user.findUnique({ where: { id: person.id } })).toMatchObject({ is_deleted: false });
  });
});
