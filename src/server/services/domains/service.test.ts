import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { startEndpointReceiver } from "@/test/webhook-receiver";
import type { Domain } from "@/lib/schemas/domains";
import { readContext } from "@/server/db/context";
import { invoke } from "@/server/operations/invoke";
import { domainOperations } from "@/server/operations/domains";
import { putOrgSetting } from "@/server/services/settings/service";
import { createWebhookEndpoint } from "@/server/services/webhooks/endpoints";
import { cli, refusal, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { startTestDns } from "@/test/dns-server";
import { createOrg, createOrgAdmin, createRole, createUser, grant, join, roleId, seedRoles } from "@/test/fixtures";
import { DOMAIN_JOINER, joinByVerifiedDomain } from "./auto-join";
import { DOMAIN_RECHECKER, recheckDomains } from "./recheck";
import { normalizeDomain } from "./service";

// Verified domains against a real DNS server on 127.0.0.1: the TXT record proves a claim, one
// organization holds a domain verified, the daily re-check fails a domain whose record stayed away,
// and people with a verified email there join at sign-in when the organization says so.

const dns = await startTestDns();
process.env.SVC_DNS_SERVERS = dns.address;
process.env.SVC_DNS_TIMEOUT_MS = "2000";
process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 7).toString("base64")}`;
const receiver = await startEndpointReceiver();
const { client } = await testDatabase();
await seedRoles(client);

const DAY = 86_400_000;
const freshDomain = () => `acme-${randomBytes(4).toString("hex")}.test`;

async function orgWithAdmin() {
  const org = await createOrg(client);
  const admin = await sessionActor(client, (await createOrgAdmin(client, org.id)).id);
  return { org, admin };
}

type Caller = Awaited<ReturnType<typeof orgWithAdmin>>;

const add = (who: Caller, domain: string) =>
  invoke(domainOperations.add, who.admin, {
    params: { org_id: who.org.id },
    query: {},
    body: () => ({ domain }),
  }) as Promise<Domain>;

const verify = (who: Caller, domain: Domain) =>
  invoke(domainOperations.verify, who.admin, {
    params: { org_id: who.org.id, domain_id: domain.id },
    query: {},
    body: () => undefined,
  }) as Promise<Domain>;

const publish = (domain: Domain, ...extra: string[]) => dns.setTxt(domain.txt_name, [domain.txt_value, ...extra]);

async function verifiedDomain(who?: Caller) {
  const owner = who ?? (await orgWithAdmin());
  const claim = await add(owner, freshDomain());
  publish(claim);
  expect((await verify(owner, claim)).status).toBe("verified");
  return { ...owner, claim };
}

describe("claiming a domain", () => {
  it("answers the TXT record to publish, the domain normalized", async () => {
    const who = await orgWithAdmin();
    const claim = await add(who, "Bücher-Haus.TEST.");
    expect(claim).toMatchObject({
      domain: "xn--bcher-haus-9db.test",
      status: "pending",
      txt_name: "_svc-challenge.xn--bcher-haus-9db.test",
    });
    expect(claim.txt_value).toMatch(/^svc-domain-verification=[A-Za-z0-9_-]{32}$/);
    // The same domain twice in one organization: 409.
    expect((await refusal(add(who, "bücher-haus.test"))).code).toBe("conflict");
  });

  it("refuses junk with validation_failed and a public email provider's domain with public_email_domain", async () => {
    const who = await orgWithAdmin();
    for (const junk of [
      "localhost",
      "1.2.3.4",
      "-bad.test",
      "a..b.test",
      "exa mple.test",
      "http://acme.test",
      "user@acme.test",
      `${"a".repeat(64)}.test`,
      "acme_co.test",
      ".",
    ]) {
      const error = await refusal(add(who, junk));
      expect([junk, error.code]).toEqual([junk, "validation_failed"]);
    }
    for (const provider of ["gmail.com", "GMAIL.com.", "mail.yahoo.com"])
      expect((await refusal(add(who, provider))).code).toBe("public_email_domain");
    expect(await client.organizationDomain.count({ where: { org_id: who.org.id } })).toBe(0);
  });

  it("normalizes without a network", () => {
    expect(normalizeDomain(" Example.ORG. ")).toBe("example.org");
    expect(normalizeDomain("例え.テスト")).toBe("xn--r8jz45g.xn--zckzah");
    expect(normalizeDomain("example")).toBeNull();
  });
});

describe("verifying a domain", () => {
  it("verifies with the record, audited and announced as domain.verified", async () => {
    const who = await orgWithAdmin();
    await createWebhookEndpoint(readContext(who.admin), who.org.id, {
      url: `${receiver.url}/domains`,
      description: null,
      event_types: ["domain.verified"],
      enabled: true,
    });
    const claim = await add(who, freshDomain());
    publish(claim, "v=spf1 -all");
    const verified = await verify(who, claim);
    expect(verified).toMatchObject({ status: "verified", last_error: null });
    expect(verified.verified_at).not.toBeNull();
    const actions = await client.auditEvent.findMany({ where: { target_id: claim.id }, orderBy: { id: "asc" } });
    expect(actions.map((a) => a.action).sort()).toEqual(["addDomain", "domainVerified", "verifyDomain"]);
    const messages = await client.webhookMessage.findMany({
      where: { org_id: who.org.id, event_type: "domain.verified" },
    });
    expect(messages).toHaveLength(1);
    // Verifying again changes nothing and announces nothing new.
    expect((await verify(who, claim)).status).toBe("verified");
    expect(await client.webhookMessage.count({ where: { org_id: who.org.id, event_type: "domain.verified" } })).toBe(1);
  });

  it("stays pending without the record, saying why", async () => {
    const who = await orgWithAdmin();
    const claim = await add(who, freshDomain());
    const pending = await verify(who, claim);
    expect(pending.status).toBe("pending");
    expect(pending.last_error).toBe(`No TXT record at ${claim.txt_name}.`);
    expect(pending.last_checked_at).not.toBeNull();
  });

  it("stays pending when the record holds another value", async () => {
    const who = await orgWithAdmin();
    const claim = await add(who, freshDomain());
    dns.setTxt(claim.txt_name, ["svc-domain-verification=not-the-token"]);
    const pending = await verify(who, claim);
    expect(pending.status).toBe("pending");
    expect(pending.last_error).toContain("does not hold the expected value");
  });

  it("refuses a domain another organization verified: domain_taken, the claim left pending", async () => {
    const first = await verifiedDomain();
    const second = await orgWithAdmin();
    const claim = await add(second, first.claim.domain);
    dns.setTxt(claim.txt_name, [first.claim.txt_value, claim.txt_value]);
    expect((await refusal(verify(second, claim))).code).toBe("domain_taken");
    expect((await client.organizationDomain.findUniqueOrThrow({ where: { id: claim.id } })).status).toBe("pending");
    // Once the first organization removes it, the second may verify it.
    await invoke(domainOperations.delete, first.admin, {
      params: { org_id: first.org.id, domain_id: first.claim.id },
      query: {},
      body: () => undefined,
    });
    expect((await verify(second, claim)).status).toBe("verified");
  });

  it("lets one of two organizations verifying at once win; the other gets domain_taken", async () => {
    const domain = freshDomain();
    const [a, b] = [await orgWithAdmin(), await orgWithAdmin()];
    const [claimA, claimB] = [await add(a, domain), await add(b, domain)];
    dns.setTxt(claimA.txt_name, [claimA.txt_value, claimB.txt_value]);
    for (let round = 0; round < 3; round += 1) {
      const outcomes = await Promise.allSettled([verify(a, claimA), verify(b, claimB)]);
      const won = outcomes.filter((o) => o.status === "fulfilled");
      expect(won).toHaveLength(1);
      const lost = outcomes.find((o) => o.status === "rejected");
      expect(lost && (await refusal(Promise.reject(lost.reason))).code).toBe("domain_taken");
    }
    expect(await client.organizationDomain.count({ where: { domain, status: "verified" } })).toBe(1);
  });

  it("the database itself refuses a second verified row for a domain", async () => {
    const first = await verifiedDomain();
    const other = await createOrg(client);
    const error = await refusal(
      client.organizationDomain.create({
        data: { org_id: other.id, domain: first.claim.domain, token: "x", status: "verified" },
      }),
    );
    expect(error.code).toBe("domain_taken");
  });

  it("keeps other tenants' domains out of sight", async () => {
    const owner = await verifiedDomain();
    const stranger = await orgWithAdmin();
    const error = await refusal(
      invoke(domainOperations.get, stranger.admin, {
        params: { org_id: owner.org.id, domain_id: owner.claim.id },
        query: {},
        body: () => undefined,
      }),
    );
    expect(["forbidden", "not_found"]).toContain(error.code);
    const viaOwnOrg = await refusal(
      invoke(domainOperations.verify, stranger.admin, {
        params: { org_id: stranger.org.id, domain_id: owner.claim.id },
        query: {},
        body: () => undefined,
      }),
    );
    expect(viaOwnOrg.code).toBe("not_found");
    const list = (await invoke(domainOperations.list, owner.admin, {
      params: { org_id: owner.org.id },
      query: { limit: "10" },
      body: () => undefined,
    })) as { data: Domain[]; next_cursor: string | null };
    expect(list).toMatchObject({ data: [{ id: owner.claim.id, status: "verified" }], next_cursor: null });
  });
});

describe("the daily re-check", () => {
  it("starts a grace period when the record goes, and fails the domain 7 days on (domain.failed)", async () => {
    const { org, admin, claim } = await verifiedDomain();
    await createWebhookEndpoint(readContext(admin), org.id, {
      url: `${receiver.url}/failed`,
      description: null,
      event_types: ["domain.failed"],
      enabled: true,
    });
    const job = readContext(DOMAIN_RECHECKER);
    const now = new Date(Date.now() + DAY);
    // Present: nothing changes but the check's time.
    await recheckDomains(job, { now });
    expect(await client.organizationDomain.findUniqueOrThrow({ where: { id: claim.id } })).toMatchObject({
      status: "verified",
      missing_since: null,
    });
    dns.remove(claim.txt_name);
    const missingAt = new Date(now.getTime() + DAY);
    await recheckDomains(job, { now: missingAt });
    expect(await client.organizationDomain.findUniqueOrThrow({ where: { id: claim.id } })).toMatchObject({
      status: "verified",
      missing_since: missingAt,
    });
    // Six days on: still verified.
    await recheckDomains(job, { now: new Date(missingAt.getTime() + 6 * DAY) });
    expect((await client.organizationDomain.findUniqueOrThrow({ where: { id: claim.id } })).status).toBe("verified");
    const result = await recheckDomains(job, { now: new Date(missingAt.getTime() + 7 * DAY) });
    expect(result.failed).toContain(claim.id);
    expect((await client.organizationDomain.findUniqueOrThrow({ where: { id: claim.id } })).status).toBe("failed");
    const actions = (await client.auditEvent.findMany({ where: { target_id: claim.id } })).map((a) => a.action);
    expect(actions).toEqual(expect.arrayContaining(["domainRecordMissing", "domainFailed"]));
    expect(await client.webhookMessage.count({ where: { org_id: org.id, event_type: "domain.failed" } })).toBe(1);
  });

  it("clears the grace period when the record is back", async () => {
    const { claim } = await verifiedDomain();
    const job = readContext(DOMAIN_RECHECKER);
    dns.remove(claim.txt_name);
    const missingAt = new Date(Date.now() + DAY);
    await recheckDomains(job, { now: missingAt });
    dns.setTxt(claim.txt_name, [claim.txt_value]);
    await recheckDomains(job, { now: new Date(missingAt.getTime() + 3 * DAY) });
    await recheckDomains(job, { now: new Date(missingAt.getTime() + 8 * DAY) });
    expect(await client.organizationDomain.findUniqueOrThrow({ where: { id: claim.id } })).toMatchObject({
      status: "verified",
      missing_since: null,
    });
  });
});

describe("joining by verified domain", () => {
  async function person(domain: string, verified = true) {
    const user = await createUser(client);
    return client.user.update({
      where: { id: user.id },
      data: { email: `${user.username}@${domain}`, email_verified_at: verified ? new Date() : null },
    });
  }
  const autoJoin = (orgId: string) =>
    putOrgSetting(readContext(cli), orgId, "membership.domain_policy", { value: "auto_join" } as never);
  const rolesIn = async (userId: string, orgId: string) =>
    (await client.userRole.findMany({ where: { user_id: userId, org_id: orgId }, include: { role: true } })).map(
      (g) => g.role.name,
    );

  it("makes a user with a verified email there a member at sign-in, with org_member only (audited, member.joined)", async () => {
    const { org, admin, claim } = await verifiedDomain();
    await createWebhookEndpoint(readContext(admin), org.id, {
      url: `${receiver.url}/joined`,
      description: null,
      event_types: ["member.joined"],
      enabled: true,
    });
    const user = await person(claim.domain);
    // Policy off (the default): nothing.
    expect(await joinByVerifiedDomain(readContext(DOMAIN_JOINER), user.id)).toEqual([]);
    await autoJoin(org.id);
    expect(await joinByVerifiedDomain(readContext(DOMAIN_JOINER), user.id)).toEqual([org.id]);
    expect(await rolesIn(user.id, org.id)).toEqual(["org_member"]);
    expect(
      await client.auditEvent.count({ where: { action: "joinByDomain", org_id: org.id, target_id: user.id } }),
    ).toBe(1);
    expect(await client.webhookMessage.count({ where: { org_id: org.id, event_type: "member.joined" } })).toBe(1);
    // The next sign-in changes nothing.
    expect(await joinByVerifiedDomain(readContext(DOMAIN_JOINER), user.id)).toEqual([]);
  });

  it("leaves out an unverified email, a pending domain, and another domain", async () => {
    const { org, claim } = await verifiedDomain();
    await autoJoin(org.id);
    const unverified = await person(claim.domain, false);
    const elsewhere = await person(freshDomain());
    const pendingOrg = await orgWithAdmin();
    const pending = await add(pendingOrg, freshDomain());
    await autoJoin(pendingOrg.org.id);
    const atPending = await person(pending.domain);
    for (const user of [unverified, elsewhere, atPending])
      expect(await joinByVerifiedDomain(readContext(DOMAIN_JOINER), user.id)).toEqual([]);
    expect(await client.userOrgMembership.count({ where: { org_id: org.id } })).toBe(1);
  });

  it("gives the chosen role and nothing more; refuses a setting that names no org role", async () => {
    const { org, claim } = await verifiedDomain();
    await autoJoin(org.id);
    const role = await createRole(client, "org", ["svc:org:read"]);
    await putOrgSetting(readContext(cli), org.id, "membership.domain_role_id", { value: role.id } as never);
    const user = await person(claim.domain);
    await joinByVerifiedDomain(readContext(DOMAIN_JOINER), user.id);
    expect(await client.userRole.findMany({ where: { user_id: user.id } })).toEqual([
      expect.objectContaining({ role_id: role.id, org_id: org.id }),
    ]);
    const sysAdminRole = await roleId(client, "sys_admin");
    expect(
      (
        await refusal(
          putOrgSetting(readContext(cli), org.id, "membership.domain_role_id", { value: sysAdminRole } as never),
        )
      ).code,
    ).toBe("validation_failed");
    expect(
      (
        await refusal(
          putOrgSetting(readContext(cli), org.id, "membership.domain_policy", { value: "everyone" } as never),
        )
      ).code,
    ).toBe("validation_failed");
  });

  it("lets no one choose a role to give by domain whose permissions they do not hold there", async () => {
    const { org } = await verifiedDomain();
    // A settings editor of the organization, holding nothing else.
    const editorRole = await createRole(client, "org", ["svc:org:read", "svc:org:settings:write"]);
    const editor = await createUser(client);
    await join(client, editor.id, org.id);
    await grant(client, editor.id, editorRole.id, org.id);
    const asEditor = readContext(await sessionActor(client, editor.id));
    const orgAdminRole = await roleId(client, "org_admin");
    const refused = await refusal(
      putOrgSetting(asEditor, org.id, "membership.domain_role_id", { value: orgAdminRole } as never),
    );
    expect(refused.code).toBe("scope_not_held");
    expect(
      await client.organizationSetting.count({ where: { org_id: org.id, key: "membership.domain_role_id" } }),
    ).toBe(0);
    // A role within what the editor holds is theirs to choose.
    const reader = await createRole(client, "org", ["svc:org:read"]);
    await putOrgSetting(asEditor, org.id, "membership.domain_role_id", { value: reader.id } as never);
  });

  it("skips an organization at its max_members", async () => {
    const { org, claim } = await verifiedDomain();
    const tier = `tiny${randomBytes(3).toString("hex")}`;
    await client.platformSetting.create({
      data: { key: `tier.${tier}`, value: { max_members: 1 }, value_type: "json" },
    });
    await client.organization.update({ where: { id: org.id }, data: { subscription_tier: tier } });
    await autoJoin(org.id);
    const user = await person(claim.domain);
    expect(await joinByVerifiedDomain(readContext(DOMAIN_JOINER), user.id)).toEqual([]);
    expect(await client.userOrgMembership.count({ where: { org_id: org.id } })).toBe(1);
  });
});
