import { describe, expect, it } from "vitest";
import { PROCESS_TEST_TIMEOUT_MS, request, type Caller } from "@/test/app";
import { startTestDns } from "@/test/dns-server";
import { createOrg, createOrgAdmin, createUser } from "@/test/fixtures";
import { appOnOwnDatabase, consoleSession } from "@/test/suite";

// Domains over real HTTP, the app asking a real DNS server on 127.0.0.1 (SVC_DNS_SERVERS): the
// REST answers in their documented shapes, and joining by verified domain at console sign-in.

const dns = await startTestDns();
const { client, app } = await appOnOwnDatabase({ SVC_DNS_SERVERS: dns.address, SVC_DNS_TIMEOUT_MS: "2000" });

let counter = 0;
const freshDomain = () => `corp-${process.pid}-${(counter += 1)}.test`;

async function orgAdmin() {
  const org = await createOrg(client);
  const admin = await createOrgAdmin(client, org.id);
  return { org, as: { session: await consoleSession(app, admin.username) } as Caller };
}

describe("REST /api/v1/organizations/{org_id}/domains", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("claims (201, Location), verifies against the record, and answers problems as documented", async () => {
    const { org, as } = await orgAdmin();
    const base = `/api/v1/organizations/${org.id}/domains`;
    const domain = freshDomain();
    const added = await request<{ id: string; txt_name: string; txt_value: string; status: string }>(
      app,
      as,
      "POST",
      base,
      { domain: `${domain.toUpperCase()}.` },
    );
    expect(added.status).toBe(201);
    expect(added.headers.get("location")).toMatch(new RegExp(`${base}/${added.body.id}$`));
    expect(added.body).toMatchObject({ status: "pending", txt_name: `_svc-challenge.${domain}` });

    const pending = await request(app, as, "POST", `${base}/${added.body.id}/verify`);
    expect(pending.body).toMatchObject({ status: "pending", last_error: `No TXT record at _svc-challenge.${domain}.` });
    dns.setTxt(added.body.txt_name, [added.body.txt_value]);
    const verified = await request(app, as, "POST", `${base}/${added.body.id}/verify`);
    expect(verified.body).toMatchObject({ status: "verified", last_error: null });

    const listed = await request<{ data: { id: string }[]; next_cursor: string | null }>(app, as, "GET", base);
    expect(listed.body).toEqual({ data: [expect.objectContaining({ id: added.body.id })], next_cursor: null });

    const junk = await request(app, as, "POST", base, { domain: "not a domain" });
    expect(junk.status).toBe(400);
    expect(junk.headers.get("content-type")).toContain("application/problem+json");
    expect(junk.body).toMatchObject({ code: "validation_failed", errors: [{ path: "domain" }] });

    const provider = await request(app, as, "POST", base, { domain: "gmail.com" });
    expect(provider.status).toBe(422);
    expect(provider.body).toMatchObject({ code: "public_email_domain", status: 422 });

    const other = await orgAdmin();
    const otherBase = `/api/v1/organizations/${other.org.id}/domains`;
    const claim = await request<{ id: string; txt_value: string }>(app, other.as, "POST", otherBase, { domain });
    dns.setTxt(added.body.txt_name, [added.body.txt_value, claim.body.txt_value]);
    const taken = await request(app, other.as, "POST", `${otherBase}/${claim.body.id}/verify`);
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: "domain_taken" });
    // Another tenant's domain looks missing through one's own organization.
    expect((await request(app, other.as, "GET", `${otherBase}/${added.body.id}`)).status).toBe(404);
  });
});

describe("joining by verified domain at sign-in", { timeout: PROCESS_TEST_TIMEOUT_MS }, () => {
  it("makes a user with a verified email there an org_member at sign-in, and no one else", async () => {
    const { org, as } = await orgAdmin();
    const domain = freshDomain();
    const claim = await request<{ id: string; txt_name: string; txt_value: string }>(
      app,
      as,
      "POST",
      `/api/v1/organizations/${org.id}/domains`,
      { domain },
    );
    dns.setTxt(claim.body.txt_name, [claim.body.txt_value]);
    await request(app, as, "POST", `/api/v1/organizations/${org.id}/domains/${claim.body.id}/verify`);
    const put = await request(app, as, "PUT", `/api/v1/organizations/${org.id}/settings/membership.domain_policy`, {
      value: "auto_join",
    });
    expect(put.status).toBe(200);

    const verified = await createUser(client);
    await client.user.update({
      where: { id: verified.id },
      data: { email: `${verified.username}@${domain}`, email_verified_at: new Date() },
    });
    const unverified = await createUser(client);
    await client.user.update({ where: { id: unverified.id }, data: { email: `${unverified.username}@${domain}` } });

    await consoleSession(app, verified.username);
    await consoleSession(app, unverified.username);
    const grants = await client.userRole.findMany({
      where: { org_id: org.id, user_id: verified.id },
      include: { role: true },
    });
    expect(grants.map((g) => g.role.name)).toEqual(["org_member"]);
    expect(await client.userOrgMembership.count({ where: { org_id: org.id, user_id: unverified.id } })).toBe(0);
    expect(await client.auditEvent.count({ where: { action: "joinByDomain", org_id: org.id } })).toBe(1);
  });
});
