import { describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, request, type Caller, type RunningApp } from "@/test/app";
import { createOrg, createOrgAdmin } from "@/test/fixtures";
import { appOnOwnDatabase, consoleSession } from "@/test/suite";

// The SCIM 2.0 service over real HTTP, as a directory calls it: a token made by the organization's
// admin, Users and Groups in the shapes Okta and Entra ID send, and what provisioning does to
// membership and access.

const { client, app } = await appOnOwnDatabase();

const SCIM = "application/scim+json";

async function scim<T = Record<string, unknown>>(
  running: RunningApp,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await running.fetch(`/api/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": SCIM }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
}

async function organizationWithToken() {
  const org = await createOrg(client);
  const admin = await createOrgAdmin(client, org.id);
  const as: Caller = { session: await consoleSession(app, admin.username) };
  const created = await request<{ token: string; id: string; prefix: string }>(
    app,
    as,
    "POST",
    `/api/v1/organizations/${org.id}/scim-tokens`,
    { name: "Okta" },
  );
  expect(created.status).toBe(201);
  return { org, admin, as, token: created.body.token, tokenId: created.body.id };
}

describe("SCIM 2.0 service", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("provisions, lists with a filter, patches Entra's way, and deprovisions", async () => {
    const { org, token } = await organizationWithToken();
    const created = await scim<{ id: string; meta: { version: string } }>(app, token, "POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: `ada-${org.id.slice(0, 8)}@acme.test`,
      externalId: "00u1",
      name: { givenName: "Ada", familyName: "Lovelace" },
      emails: [{ value: `ada-${org.id.slice(0, 8)}@acme.test`, type: "work", primary: true }],
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("content-type")).toContain(SCIM);
    expect(created.headers.get("etag")).toBe('W/"1"');

    const found = await scim<{ totalResults: number; Resources: { id: string }[] }>(
      app,
      token,
      "GET",
      `/Users?filter=${encodeURIComponent('externalId eq "00u1"')}`,
    );
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0]!.id).toBe(created.body.id);

    const suspended = await scim<{ active: boolean }>(app, token, "PATCH", `/Users/${created.body.id}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    expect(suspended.status).toBe(200);
    expect(suspended.body.active).toBe(false);

    const membership = await client.userOrgMembership.findFirst({ where: { org_id: org.id }, orderBy: { id: "desc" } });
    expect(membership?.suspended_at).not.toBeNull();

    const bad = await scim(app, token, "GET", `/Users?filter=${encodeURIComponent("userName eq")}`);
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
