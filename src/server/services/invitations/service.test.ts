import { describe, expect, it } from "vitest";
import { startEndpointReceiver } from "@/test/webhook-receiver";
import { readContext } from "@/server/db/context";
import { invoke } from "@/server/operations/invoke";
import { invitationOperations as ops } from "@/server/operations/invitations";
import { createWebhookEndpoint } from "@/server/services/webhooks/endpoints";
import { cli, refusal, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, createRole, createUser, join, PASSWORD, roleId, seedRoles } from "@/test/fixtures";
import { expireInvitations } from "./expiry";
import { hashLinkToken } from "@/server/auth/link-tokens";

// Invitations through the operations (so each change is one audited unit, as at the doors): the
// token is shown once and kept as a hash, one pending invitation per address, no escalation, the
// tier's seats held under a race, and every unusable token refused alike.

process.env.SVC_ENCRYPTION_KEYS ??= `v1:${Buffer.alloc(32, 5).toString("base64")}`;
const receiver = await startEndpointReceiver();
const { client } = await testDatabase();
await seedRoles(client);
const memberRole = await roleId(client, "org_member");
const adminRole = await roleId(client, "org_admin");

async function setUp(tier = "pro") {
  const org = await client.organization.update({
    where: { id: (await createOrg(client)).id },
    data: { subscription_tier: tier },
  });
  const admin = await createOrgAdmin(client, org.id);
  return { org, admin: await sessionActor(client, admin.id) };
}

type Actor = Awaited<ReturnType<typeof sessionActor>>;
const call = (op: (typeof ops)[keyof typeof ops], actor: Actor | null, input: { params?: object; body?: object }) =>
  invoke(op, actor, { params: input.params ?? {}, query: {}, body: () => input.body });

interface WithLink {
  id: string;
  email: string;
  status: string;
  delivery: string;
  accept_url: string;
  roles: { id: string; name: string }[];
}
const invite = (actor: Actor, orgId: string, email: string, role_ids = [memberRole]) =>
  call(ops.create, actor, { params: { org_id: orgId }, body: { email, role_ids } }) as Promise<WithLink>;
const tokenOf = (invitation: { accept_url: string }) => invitation.accept_url.split("/").at(-1)!;

async function verifiedUser(email: string) {
  const user = await createUser(client);
  await client.user.update({ where: { id: user.id }, data: { email, email_verified_at: new Date() } });
  return sessionActor(client, user.id);
}

describe("inviting", () => {
  it("answers the link once and keeps only the token's hash", async () => {
    const { org, admin } = await setUp();
    const invitation = await invite(admin, org.id, "Ada@Example.com");
    expect(invitation).toMatchObject({
      email: "ada@example.com",
      status: "pending",
      delivery: "not_configured",
      roles: [{ id: memberRole, name: "org_member" }],
    });
    const token = tokenOf(invitation);
    expect(token).toMatch(/^[0-9A-Za-z]{43}$/);
    expect(invitation.accept_url).toMatch(/\/console\/invitations\/[0-9A-Za-z]{43}$/);
    const row = await client.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(row.token_hash).toBe(hashLinkToken(token));
    const got = (await call(ops.get, admin, { params: { org_id: org.id, invitation_id: invitation.id } })) as object;
    expect(JSON.stringify(got)).not.toContain(token);
    expect(got).not.toHaveProperty("accept_url");
  });

  it("refuses a second pending invitation to the same address, case aside, and a member's address", async () => {
    const { org, admin } = await setUp();
    await invite(admin, org.id, "grace@example.com");
    expect((await refusal(invite(admin, org.id, "GRACE@example.com"))).code).toBe("already_invited");
    const member = await createUser(client);
    await client.user.update({ where: { id: member.id }, data: { email: "member@example.com" } });
    await join(client, member.id, org.id);
    expect((await refusal(invite(admin, org.id, "Member@Example.com"))).code).toBe("already_member");
  });

  it("refuses roles whose permissions the inviter does not hold there, and roles that are not org roles", async () => {
    const { org } = await setUp();
    const lesser = await createUser(client);
    await join(client, lesser.id, org.id);
    const inviterRole = await createRole(client, "org", ["svc:org:invitations:write", "svc:org:read"]);
    await client.userRole.create({ data: { user_id: lesser.id, role_id: inviterRole.id, org_id: org.id } });
    const actor = await sessionActor(client, lesser.id);
    const error = await refusal(invite(actor, org.id, "eve@example.com", [adminRole]));
    expect(error.code).toBe("scope_not_held");
    expect(await client.invitation.count({ where: { org_id: org.id } })).toBe(0);
    const readOnly = await createRole(client, "org", ["svc:org:read"]);
    await expect(invite(actor, org.id, "eve@example.com", [readOnly.id])).resolves.toMatchObject({ status: "pending" });
    const { admin } = await setUp();
    const systemRole = await roleId(client, "sys_admin");
    expect(
      (await refusal(invite(admin, admin.grants.memberships.keys().next().value!, "x@example.com", [systemRole]))).code,
    ).toBe("validation_failed");
  });

  it("lets exactly one of ten invitations racing for the last seat of the tier through", async () => {
    const { org, admin } = await setUp("free");
    // free allows 5 members: the admin and three more leave one seat.
    for (let i = 0; i < 3; i++) await join(client, (await createUser(client)).id, org.id);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => invite(admin, org.id, `racer${i}@example.com`)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect(((o as PromiseRejectedResult).reason as { code: string }).code).toBe("quota_exceeded");
    expect(await client.invitation.count({ where: { org_id: org.id } })).toBe(1);
  });
});

describe("the hourly allowance", () => {
  it("sends at most 100 invitations an hour per organization, resends and other inviters included", async () => {
    const { org, admin } = await setUp("enterprise");
    const first = await invite(admin, org.id, "spam0@example.com");
    // Revoking and inviting again, or resending, spends the allowance as a new invitation does.
    await call(ops.revoke, admin, { params: { org_id: org.id, invitation_id: first.id } });
    const resent = await invite(admin, org.id, "spam0@example.com");
    const renewed = (await call(ops.resend, admin, {
      params: { org_id: org.id, invitation_id: resent.id },
      body: {},
    })) as WithLink;
    for (let i = 1; i < 98; i++) await invite(admin, org.id, `spam${i}@example.com`);

    const over = await refusal(invite(admin, org.id, "spam98@example.com"));
    expect(over.code).toBe("rate_limited");
    const again = await refusal(
      call(ops.resend, admin, { params: { org_id: org.id, invitation_id: resent.id }, body: {} }),
    );
    expect(again.code).toBe("rate_limited");
    // Another admin of the same organization shares its allowance.
    const other = await sessionActor(client, (await createOrgAdmin(client, org.id)).id);
    expect((await refusal(invite(other, org.id, "spam99@example.com"))).code).toBe("rate_limited");
    // Refused, nothing was written: 99 invitations (one revoked), the resent one's link unchanged.
    expect(await client.invitation.count({ where: { org_id: org.id } })).toBe(99);
    const stored = await client.invitation.findUniqueOrThrow({ where: { id: resent.id } });
    expect(stored.token_hash).toBe(hashLinkToken(tokenOf(renewed)));

    // Another organization's allowance is its own.
    const elsewhere = await setUp("enterprise");
    await expect(invite(elsewhere.admin, elsewhere.org.id, "spam0@example.com")).resolves.toMatchObject({
      status: "pending",
    });
  });
});

describe("resending and revoking", () => {
  it("resending makes a new link and the old one dies; a revoked link is refused like an unknown one", async () => {
    const { org, admin } = await setUp();
    const first = await invite(admin, org.id, "lin@example.com");
    const again = (await call(ops.resend, admin, {
      params: { org_id: org.id, invitation_id: first.id },
      body: { expires_in_days: 3 },
    })) as WithLink;
    expect(tokenOf(again)).not.toBe(tokenOf(first));
    const lin = await verifiedUser("lin@example.com");
    const old = await refusal(call(ops.accept, lin, { body: { token: tokenOf(first) } }));
    expect(old.code).toBe("not_found");
    await call(ops.revoke, admin, { params: { org_id: org.id, invitation_id: first.id } });
    const revoked = await refusal(call(ops.accept, lin, { body: { token: tokenOf(again) } }));
    const unknown = await refusal(call(ops.accept, lin, { body: { token: "A".repeat(43) } }));
    const malformed = await refusal(call(ops.accept, lin, { body: { token: "not a token" } }));
    for (const e of [revoked, unknown, malformed]) {
      expect(e.code).toBe(old.code);
      expect(e.message).toBe(old.message);
    }
    expect(await client.userOrgMembership.count({ where: { org_id: org.id, user_id: lin.userId } })).toBe(0);
  });
});

describe("accepting", () => {
  it("makes the verified owner of the address a member with the roles, once", async () => {
    const { org, admin } = await setUp();
    const invitation = await invite(admin, org.id, "joan@example.com", [memberRole]);
    const joan = await verifiedUser("Joan@example.com");
    const accepted = await call(ops.accept, joan, { body: { token: tokenOf(invitation) } });
    expect(accepted).toMatchObject({ org_id: org.id, user_id: joan.userId, roles: [{ id: memberRole }] });
    const roles = await client.userRole.findMany({ where: { user_id: joan.userId, org_id: org.id } });
    expect(roles.map((r) => r.role_id)).toEqual([memberRole]);
    const row = await client.invitation.findUniqueOrThrow({ where: { id: invitation.id } });
    expect(row).toMatchObject({ status: "accepted", accepted_by: joan.userId });
    const events = await client.auditEvent.findMany({
      where: { action: "acceptInvitation", target_id: invitation.id },
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ org_id: org.id, outcome: "success" });
    expect((await refusal(call(ops.accept, joan, { body: { token: tokenOf(invitation) } }))).code).toBe("not_found");
  });

  it("tells another signed-in user the invitation is for another address, and changes nothing", async () => {
    const { org, admin } = await setUp();
    const invitation = await invite(admin, org.id, "kay@example.com");
    const other = await verifiedUser("someone-else@example.com");
    const error = await refusal(call(ops.accept, other, { body: { token: tokenOf(invitation) } }));
    expect(error.code).toBe("forbidden");
    expect(error.message).toMatch(/another email address/);
    expect(await client.userOrgMembership.count({ where: { org_id: org.id, user_id: other.userId } })).toBe(0);
    expect((await client.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("pending");
  });

  it("signs a new person up with the invitation's address; not verified when the link was not emailed", async () => {
    const { org, admin } = await setUp();
    const invitation = await invite(admin, org.id, "new@example.com");
    const joined = (await call(ops.signUp, null, {
      body: { token: tokenOf(invitation), username: "newcomer", password: PASSWORD },
    })) as { user_id: string };
    const user = await client.user.findUniqueOrThrow({ where: { id: joined.user_id } });
    expect(user).toMatchObject({ username: "newcomer", email: "new@example.com", email_verified_at: null });
    expect(await client.userOrgMembership.count({ where: { org_id: org.id, user_id: user.id } })).toBe(1);
  });

  it("shows a pending invitation past its expiry as expired, marks it so and announces it once", async () => {
    const { org, admin } = await setUp();
    await createWebhookEndpoint(readContext(cli), org.id, {
      url: `${receiver.url}/invitations`,
      description: null,
      event_types: ["invitation.expired"],
      enabled: true,
    });
    const invitation = await invite(admin, org.id, "late@example.com");
    await client.invitation.update({ where: { id: invitation.id }, data: { expires_at: new Date(Date.now() - 1000) } });
    const listed = (await invoke(ops.list, admin, {
      params: { org_id: org.id },
      query: { status: "expired" },
      body: () => undefined,
    })) as { data: { id: string; status: string }[] };
    expect(listed.data.map((i) => [i.id, i.status])).toEqual([[invitation.id, "expired"]]);
    const late = await verifiedUser("late@example.com");
    expect((await refusal(call(ops.accept, late, { body: { token: tokenOf(invitation) } }))).code).toBe("not_found");
    await expireInvitations(readContext(cli));
    await expireInvitations(readContext(cli));
    expect((await client.invitation.findUniqueOrThrow({ where: { id: invitation.id } })).status).toBe("expired");
    const messages = await client.webhookMessage.findMany({
      where: { event_type: "invitation.expired", org_id: org.id },
    });
    expect(messages).toHaveLength(1);
    // Once expired, the address may be invited again.
    await expect(invite(admin, org.id, "late@example.com")).resolves.toMatchObject({ status: "pending" });
  });

  it("never writes a token into the audit trail or a webhook message", async () => {
    const { org, admin } = await setUp();
    await createWebhookEndpoint(readContext(cli), org.id, {
      url: `${receiver.url}/all`,
      description: null,
      event_types: ["*"],
      enabled: true,
    });
    const invitation = await invite(admin, org.id, "tok@example.com");
    const resent = (await call(ops.resend, admin, {
      params: { org_id: org.id, invitation_id: invitation.id },
      body: {},
    })) as WithLink;
    const tok = await verifiedUser("tok@example.com");
    await call(ops.accept, tok, { body: { token: tokenOf(resent) } });
    const audit = await client.$queryRaw<{ t: string }[]>`SELECT string_agg(a::text, ' ') AS t FROM audit_events a`;
    const hooks = await client.$queryRaw<{ t: string }[]>`SELECT string_agg(m::text, ' ') AS t FROM webhook_messages m`;
    for (const token of [tokenOf(invitation), tokenOf(resent)]) {
      expect(audit[0]!.t).not.toContain(token);
      expect(hooks[0]!.t).not.toContain(token);
      expect(audit[0]!.t).not.toContain(hashLinkToken(token));
      expect(hooks[0]!.t).not.toContain(hashLinkToken(token));
    }
    expect(hooks[0]!.t).toContain("invitation.created");
    expect(hooks[0]!.t).toContain("invitation.accepted");
  });
});
