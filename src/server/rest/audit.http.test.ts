import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it, vi } from "vitest";
import { systemActor } from "@/server/auth/actor";
import { totpCode } from "@/server/auth/totp";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, request, type Caller } from "@/test/app";
import { appOnOwnDatabase, consoleSession, keyOfEverything, orgKey } from "@/test/suite";
import { createOrg, createOrgAdmin, createSysAdmin, createUser, grant, join, PASSWORD, roleId } from "@/test/fixtures";
import { isChange } from "@/server/operations/operation";
import { ROUTES, type RestOperation } from "./registry";
import { readContext } from "@/server/db/context";
import { freePort } from "@/server/free-port";
import { startTestDns } from "@/test/dns-server";
import { linkIn, startMailReceiver } from "@/test/mail-receiver";
import { startReceiver } from "@/test/webhook-receiver";
import { startOidcProvider } from "@/test/oidc-provider";

// The audit trail over real HTTP. Generated from the route registry: every operation that changes
// something is called once, and its event is found by the request's id — a new operation is held
// to it without anyone remembering to. Then the two list routes, their filters and who sees what,
// refusals (403) recorded as denied, and sign-ins.

// A GitHub sign-in switched on, so that linking an identity can start (it only builds a URL); a
// mail receiver for the emails changes send, a DNS server for a domain's verification, a receiver
// for the webhook endpoints' deliveries and an IdP for an SSO connection (all on this machine,
// which the app may then call).
const mail = await startMailReceiver();
const hooks = await startReceiver();
const idp = await startOidcProvider();
afterAll(() => Promise.all([mail.close(), idp.stop()]));
const dns = await startTestDns();
const port = await freePort();
const { client, app } = await appOnOwnDatabase(
  {
    AUTH_GITHUB_ID: "audit-test-client",
    AUTH_GITHUB_SECRET: "audit-test-secret",
    SMTP_URL: mail.url,
    SMTP_FROM: "svc <no-reply@svc.test>",
    AUTH_URL: `http://127.0.0.1:${port}`,
    SVC_DNS_SERVERS: dns.address,
    SVC_ALLOW_HTTP_LOOPBACK: "1",
  },
  { port },
);

const admin = await createSysAdmin(client);
const session = await consoleSession(app, admin.username);
const asAdmin: Caller = { session };

let n = 0;
const fresh = (prefix: string) => `${prefix}-audit-${process.pid}-${++n}`;

/** Sends one request with an id of its own; answers the answer and that id. */
async function send(as: Caller, method: string, path: string, body?: unknown) {
  const requestId = `audit-${randomUUID()}`;
  const headers: Record<string, string> = { "x-request-id": requestId, "user-agent": "audit-test/1.0" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if ("key" in as) headers["x-api-key"] = as.key;
  const init = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const response = "session" in as ? await as.session.fetch(path, init) : await app.fetch(path, init);
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown>, requestId };
}

const eventsOf = (requestId: string) => client.auditEvent.findMany({ where: { request_id: requestId } });

// ---------------------------------------------------------------------------------------------
// Every change, generated from the registry

const MUTATIONS = ROUTES.filter(isChange);
const ids: Record<string, string> = {};
const orgMemberRole = await roleId(client, "org_member");

interface Step {
  id: string;
  params?: () => Record<string, string>;
  body?: () => unknown;
  /** What the step needs that no operation makes. */
  before?: () => Promise<unknown>;
  /** What to remember of the answer for later steps. */
  keep?: (body: Record<string, unknown>) => void;
}

// In an order where each step finds what it needs; every mutation of the registry appears once
// (checked below, so a new operation fails here until it is added).
const STEPS: Step[] = [
  { id: "createOrganization", body: () => ({ name: fresh("org") }), keep: (b) => (ids.org_id = b.id as string) },
  { id: "updateOrganization", body: () => ({ description: "audited" }) },
  { id: "updateSubscription", body: () => ({ tier: "pro" }) },
  {
    id: "putPlatformSetting",
    params: () => ({ key: "audit.test_setting" }),
    body: () => ({ value: 7, value_type: "integer" }),
  },
  { id: "deletePlatformSetting", params: () => ({ key: "audit.test_setting" }) },
  { id: "restorePlatformSetting", params: () => ({ key: "audit.test_setting" }) },
  { id: "putOrgSetting", params: () => ({ key: "feature.audit" }), body: () => ({ value: true }) },
  { id: "deleteOrgSetting", params: () => ({ key: "feature.audit" }) },
  { id: "restoreOrgSetting", params: () => ({ key: "feature.audit" }) },
  {
    id: "createLlmConfig",
    body: () => ({ name: "c", provider: "openai", api_key: "sk-audit-provider-key-1234" }),
    keep: (b) => (ids.config_id = b.id as string),
  },
  { id: "updateLlmConfig", body: () => ({ api_key: "sk-audit-provider-key-5678" }) },
  { id: "deleteLlmConfig" },
  { id: "restoreLlmConfig" },
  {
    id: "createOrchestrator",
    body: () => ({ name: fresh("bot"), framework_type: "langgraph", mode: "supervisor" }),
    keep: (b) => (ids.orchestrator_id = b.id as string),
  },
  { id: "updateOrchestrator", body: () => ({ name: fresh("bot") }) },
  { id: "deleteOrchestrator" },
  { id: "restoreOrchestrator" },
  {
    id: "createCentralPoint",
    body: () => ({ name: fresh("cp"), orchestrator_id: ids.orchestrator_id }),
    keep: (b) => (ids.central_point_id = b.id as string),
  },
  { id: "updateCentralPoint", body: () => ({ description: "audited" }) },
  { id: "deleteCentralPoint" },
  { id: "restoreCentralPoint" },
  {
    id: "createConversation",
    before: () => join(client, admin.id, ids.org_id!),
    body: () => ({ instance_id: ids.orchestrator_id }),
    keep: (b) => (ids.conversation_id = b.id as string),
  },
  {
    id: "appendMessages",
    body: () => ({ messages: [{ role: "user", content: "hello", turn_id: randomUUID() }] }),
    keep: (b) => (ids.message_id = (b.data as { id: string }[])[0]!.id),
  },
  { id: "compactMessages", body: () => ({ message_ids: [ids.message_id] }) },
  { id: "deleteConversation" },
  { id: "restoreConversation" },
  {
    id: "registerSystemPlugin",
    body: () => ({ pid: "com.audit.plugin", version: "1.0.0", name: "p" }),
    keep: (b) => (ids.plugin_id = b.id as string),
  },
  { id: "updateSystemPlugin", body: () => ({ enabled: false }) },
  {
    id: "registerOrgPlugin",
    body: () => ({ pid: "com.audit.own", version: "1.0.0", name: "p" }),
    keep: (b) => (ids.plugin_id = b.id as string),
  },
  { id: "updateOrgPlugin", body: () => ({ enabled: false }) },
  {
    id: "createModel",
    body: () => ({ provider: "openai", model_id: fresh("model") }),
    keep: (b) => (ids.model_config_id = b.id as string),
  },
  { id: "updateModel", body: () => ({ display_name: "Audited" }) },
  { id: "createUser", body: () => ({ username: fresh("user") }), keep: (b) => (ids.user_id = b.id as string) },
  { id: "updateUser", body: () => ({ display_name: "Audited" }) },
  { id: "resetUserPassword", body: () => ({ password: "a-new-password-123" }) },
  {
    id: "markUserEmailVerified",
    before: () =>
      client.user.update({ where: { id: ids.user_id }, data: { email: `${fresh("marked")}@example.test` } }),
  },
  { id: "addMember", body: () => ({ user_id: ids.user_id }) },
  { id: "grantOrgRole", body: () => ({ role_id: orgMemberRole }), keep: () => (ids.role_id = orgMemberRole) },
  { id: "revokeOrgRole" },
  { id: "removeMember" },
  {
    id: "createServiceAccount",
    before: async () => (ids.human_id = ids.user_id!),
    body: () => ({ username: fresh("robot"), role_ids: [orgMemberRole] }),
    keep: (b) => (ids.user_id = b.id as string),
  },
  { id: "updateServiceAccount", body: () => ({ display_name: "Audited robot" }) },
  {
    id: "createServiceAccountKey",
    body: () => ({ name: "robot", scopes: ["svc:org:read"] }),
    keep: (b) => (ids.key_id = b.id as string),
  },
  { id: "updateServiceAccountKey", body: () => ({ name: "robot again" }) },
  { id: "changeServiceAccountKeyCredits", body: () => ({ op: "set", amount: 10 }) },
  { id: "rollServiceAccountKey", body: () => ({ grace_period_seconds: 60 }) },
  { id: "revokeServiceAccountKey" },
  { id: "deleteServiceAccount", keep: () => (ids.user_id = ids.human_id!) },
  { id: "revokeAllApiKeys" },
  {
    id: "createRole",
    body: () => ({ name: fresh("role"), scope: "system", permissions: ["svc:system:orgs:read"] }),
    keep: (b) => (ids.role_id = b.id as string),
  },
  { id: "updateRole", body: () => ({ description: "audited" }) },
  { id: "grantRole", body: () => ({ role_id: ids.role_id }), keep: (b) => (ids.grant_id = String(b.id)) },
  { id: "revokeGrant" },
  { id: "deleteRole" },
  { id: "restoreRole" },
  {
    id: "unlinkUserIdentity",
    before: async () => {
      ids.identity_id = (
        await client.userOauthIdentity.create({
          data: { user_id: ids.user_id!, provider: "github", provider_user_id: fresh("gh") },
        })
      ).id;
    },
  },
  { id: "deleteUser" },
  { id: "restoreUser" },
  {
    id: "createOAuthClient",
    body: () => ({ name: fresh("client"), client_type: "confidential", allowed_grant_types: ["client_credentials"] }),
    keep: (b) => (ids.client_id = routeOf("createOAuthClient").created!(b as never)),
  },
  { id: "updateOAuthClient", body: () => ({ name: fresh("client") }) },
  { id: "rotateOAuthClientSecret" },
  { id: "deleteOAuthClient" },
  { id: "restoreOAuthClient" },
  {
    id: "createApiKey",
    body: () => ({ name: "audited", scopes: ["svc:org:read"] }),
    keep: (b) => (ids.key_id = b.id as string),
  },
  { id: "updateApiKey", body: () => ({ name: "audited again" }) },
  { id: "changeApiKeyCredits", body: () => ({ op: "set", amount: 10 }) },
  { id: "rollApiKey", body: () => ({ grace_period_seconds: 60 }) },
  { id: "revokeApiKey" },
  { id: "revokeLeakedApiKeys", body: () => ({ keys: ["not-a-key"] }) },
  { id: "setUpTwoFactor", keep: (b) => (ids.totp_secret = b.secret as string) },
  {
    id: "confirmTwoFactor",
    body: () => ({ code: totpCode(ids.totp_secret!, Date.now() / 1000) }),
    keep: (b) => (ids.recovery_code = (b.recovery_codes as string[])[0]!),
  },
  // A recovery code: the TOTP code of this time step was just spent.
  { id: "turnOffTwoFactor", body: () => ({ password: PASSWORD, code: ids.recovery_code }) },
  { id: "resetUserTwoFactor" },
  { id: "linkIdentity", body: () => ({ provider: "github" }) },
  {
    id: "sendEmailVerification",
    before: () =>
      client.user.update({ where: { id: admin.id }, data: { email: ADMIN_EMAIL, email_verified_at: null } }),
  },
  {
    id: "confirmEmailVerification",
    before: async () => (ids.email_token = tokenOf(await mailTo(ADMIN_EMAIL), "/console/verify-email/")),
    body: () => ({ token: ids.email_token }),
  },
  {
    id: "addDomain",
    body: () => ({ domain: `${fresh("corp")}.example.net` }),
    keep: (b) => {
      ids.domain_id = b.id as string;
      ids.domain = b.domain as string;
      dns.setTxt(b.txt_name as string, [b.txt_value as string]);
    },
  },
  { id: "verifyDomain" },
  {
    id: "createSsoConnection",
    body: () => ({
      type: "oidc",
      domains: [ids.domain],
      issuer: idp.issuer,
      client_id: idp.clientId,
      client_secret: idp.clientSecret,
    }),
    keep: (b) => (ids.connection_id = b.id as string),
  },
  { id: "updateSsoConnection", body: () => ({ enabled: false }) },
  { id: "deleteSsoConnection" },
  { id: "createScimToken", body: () => ({ name: "Okta" }), keep: (b) => (ids.credential_id = b.id as string) },
  { id: "revokeScimToken" },
  {
    id: "mapScimGroup",
    before: async () => {
      const group = await client.scimGroup.create({
        data: { org_id: ids.org_id!, display_name: "Engineering", role_ids: [] },
      });
      ids.group_id = group.id;
    },
    body: () => ({ role_ids: [orgMemberRole] }),
  },
  { id: "deleteDomain" },
  {
    id: "createInvitation",
    body: () => ({ email: `${fresh("invitee")}@example.test`, role_ids: [orgMemberRole] }),
    keep: (b) => (ids.invitation_id = b.id as string),
  },
  { id: "resendInvitation" },
  { id: "revokeInvitation" },
  {
    id: "signUpWithInvitation",
    before: async () => (ids.signup_token = await invitationToken(ids.org_id!, `${fresh("joiner")}@example.test`)),
    body: () => ({ token: ids.signup_token, username: fresh("joiner"), password: PASSWORD }),
  },
  {
    // The admin's verified email (confirmed above), invited to an organization they are not in.
    id: "acceptInvitation",
    before: async () => {
      const other = await send(asAdmin, "POST", "/api/v1/organizations", { name: fresh("org") });
      ids.accept_token = await invitationToken(other.body.id as string, ADMIN_EMAIL);
    },
    body: () => ({ token: ids.accept_token }),
  },
  {
    id: "createWebhookEndpoint",
    body: () => ({ url: `${hooks.url}/audit`, event_types: ["*"] }),
    keep: (b) => (ids.endpoint_id = b.id as string),
  },
  { id: "updateWebhookEndpoint", body: () => ({ description: "audited" }) },
  { id: "rotateWebhookEndpointSecret" },
  { id: "testWebhookEndpoint", keep: (b) => (ids.delivery_id = b.delivery_id as string) },
  { id: "retryWebhookDelivery" },
  { id: "deleteWebhookEndpoint" },
  {
    id: "createOrgWebhookEndpoint",
    body: () => ({ url: `${hooks.url}/org`, event_types: ["audit.event"] }),
    keep: (b) => (ids.org_endpoint_id = b.id as string),
  },
  {
    id: "updateOrgWebhookEndpoint",
    params: () => ({ endpoint_id: ids.org_endpoint_id! }),
    body: () => ({ enabled: true }),
  },
  { id: "rotateOrgWebhookEndpointSecret", params: () => ({ endpoint_id: ids.org_endpoint_id! }) },
  {
    id: "testOrgWebhookEndpoint",
    params: () => ({ endpoint_id: ids.org_endpoint_id! }),
    keep: (b) => (ids.org_delivery_id = b.delivery_id as string),
  },
  {
    id: "retryOrgWebhookDelivery",
    params: () => ({ endpoint_id: ids.org_endpoint_id!, delivery_id: ids.org_delivery_id! }),
  },
  { id: "deleteOrgWebhookEndpoint", params: () => ({ endpoint_id: ids.org_endpoint_id! }) },
  { id: "deleteOrganization" },
  { id: "restoreOrganization" },
  // Last: it ends the session the steps run in.
  { id: "signOutEverywhere" },
];

const ADMIN_EMAIL = `admin-audit-${process.pid}@example.test`;

/** The messages sent to `address`, once at least one has arrived. */
async function mailTo(address: string) {
  await vi.waitFor(() => expect(mail.to(address)).not.toHaveLength(0), { timeout: 30_000, interval: 200 });
  return mail.to(address);
}

/** The token of the last message's link under `pathPrefix`. */
function tokenOf(messages: ReturnType<typeof mail.to>, pathPrefix: string): string {
  const link = linkIn(messages.at(-1)!, pathPrefix)!;
  return link.slice(link.lastIndexOf("/") + 1);
}

/** Invites `email` to the organization (the call's own audit event is not the step's), and answers its link's token. */
async function invitationToken(orgId: string, email: string): Promise<string> {
  const invited = await send(asAdmin, "POST", `/api/v1/organizations/${orgId}/invitations`, {
    email,
    role_ids: [orgMemberRole],
  });
  const url = invited.body.accept_url as string;
  return url.slice(url.lastIndexOf("/") + 1);
}

const routeOf = (id: string) => MUTATIONS.find((r) => r.id === id) as RestOperation;
const fill = (path: string, params: Record<string, string>) =>
  path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name] ?? ids[name];
    if (value === undefined) throw new Error(`no ${name} for ${path}`);
    return encodeURIComponent(value);
  });

describe("the audit trail, for every operation that changes something", () => {
  it("covers every such operation of the registry", () => {
    expect(MUTATIONS.length).toBeGreaterThan(40);
    expect(STEPS.map((s) => s.id).sort()).toEqual(MUTATIONS.map((r) => r.id).sort());
  });

  for (const step of STEPS) {
    it(`records ${step.id} with its actor, target, request and changes, in the change's transaction`, async () => {
      await step.before?.();
      const route = routeOf(step.id);
      const path = fill(route.path, step.params?.() ?? {});
      // An operation open to anyone is called without credentials: the system acts for the caller.
      const anonymous = route.access === "public";
      const answer = await send(anonymous ? { anonymous: true } : asAdmin, route.method, path, step.body?.());
      expect(answer.status, `${route.method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
      step.keep?.(answer.body);
      const events = await eventsOf(answer.requestId);
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event).toMatchObject({
        action: step.id,
        outcome: "success",
        user_agent: "audit-test/1.0",
        ...(anonymous
          ? { actor_user_id: null, actor_auth: "system" }
          : { actor_user_id: admin.id, actor_auth: "session" }),
      });
      expect(event!.ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
      if (route.created) expect(event!.target_id).toBe(route.created(answer.body as never));
      if (path.includes("/organizations/")) expect(event!.org_id).toBe(ids.org_id);
      // The event is no older than the change: occurred_at is its transaction's start.
      expect(event!.occurred_at.getTime()).toBeLessThanOrEqual(Date.now());
    });
  }

  it("records changed fields with old and new values, and secret fields by name only", async () => {
    const update = await client.auditEvent.findFirstOrThrow({
      where: { action: "updateOrganization", org_id: ids.org_id },
    });
    expect(update.changes).toEqual({ description: { old: null, new: "audited" } });
    const deleted = await client.auditEvent.findFirstOrThrow({ where: { action: "deleteLlmConfig" } });
    expect(deleted.changes).toEqual({ is_deleted: { old: false, new: true } });
    const keyChange = await client.auditEvent.findFirstOrThrow({ where: { action: "updateLlmConfig" } });
    expect(keyChange.changes).toEqual({ api_key: { redacted: true } });
    const key = await client.auditEvent.findFirstOrThrow({ where: { action: "createApiKey" } });
    expect(key.changes).toMatchObject({ key_hash: { redacted: true }, name: { old: null, new: "audited" } });
    const password = await client.auditEvent.findFirstOrThrow({ where: { action: "resetUserPassword" } });
    expect(password.changes).toMatchObject({ password_hash: { redacted: true } });
    const everything = JSON.stringify(await client.auditEvent.findMany());
    for (const secret of ["sk-audit-provider-key", "a-new-password-123", "$argon2"])
      expect(everything).not.toContain(secret);
  });

  it("writes nothing when the change fails, and nothing for a read", async () => {
    const taken = await client.providerModelConfig.findFirstOrThrow();
    const again = await send({ key: adminKey.raw_key }, "POST", "/api/v1/models", {
      provider: taken.provider,
      model_id: taken.model_id,
    });
    expect(again.status).toBe(409);
    expect(await eventsOf(again.requestId)).toEqual([]);
    const read = await send({ key: adminKey.raw_key }, "GET", "/api/v1/organizations");
    expect(read.status).toBe(200);
    expect(await eventsOf(read.requestId)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Reading the trail

const adminKey = await keyOfEverything(admin.id);

// An org admin of org A, another organization B; a change in each.
const orgA = await createOrg(client);
const orgB = await createOrg(client);
const orgAdmin = await createOrgAdmin(client, orgA.id);
const orgAdminKey = await orgKey(orgAdmin.id);
const asOrgAdmin: Caller = { key: orgAdminKey.raw_key };
const changeA = await send(asOrgAdmin, "PATCH", `/api/v1/organizations/${orgA.id}`, { description: "a" });
const changeB = await send({ key: adminKey.raw_key }, "PATCH", `/api/v1/organizations/${orgB.id}`, {
  description: "b",
});

type List = {
  data: {
    id: string;
    action: string;
    org_id: string | null;
    actor: { user_id: string | null; username: string | null; auth: string; key_prefix: string | null };
    target: { type: string | null; id: string | null; name: string | null };
    request_id: string | null;
    outcome: string;
    changes: unknown;
  }[];
  next_cursor: string | null;
};
const list = (as: Caller, path: string) => request<List>(app, as, "GET", path);

describe("GET /api/v1/audit-events", () => {
  it("answers the platform's events, newest first, with actor and target", async () => {
    // The steps above made many events since change B: read pages, newest first, until it shows.
    const events: List["data"] = [];
    let cursor: string | null = null;
    do {
      const page = await list(
        { key: adminKey.raw_key },
        `/api/v1/audit-events?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(page.status).toBe(200);
      events.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor && !events.some((e) => e.request_id === changeB.requestId));
    const ids_ = events.map((e) => e.id);
    expect(ids_).toEqual([...ids_].sort().reverse());
    const b = events.find((e) => e.request_id === changeB.requestId);
    expect(b).toMatchObject({
      action: "updateOrganization",
      org_id: orgB.id,
      outcome: "success",
      target: { type: "organization", id: orgB.id, name: orgB.name },
      actor: { user_id: admin.id, username: admin.username, auth: "api_key", key_prefix: adminKey.key_prefix },
      changes: { description: { old: null, new: "b" } },
    });
  });

  it("filters by action, actor, target and time range, and pages", async () => {
    const byTarget = (await list({ key: adminKey.raw_key }, `/api/v1/audit-events?target_id=${orgA.id}`)).body;
    expect(byTarget.data.map((e) => e.request_id)).toEqual([changeA.requestId]);
    const byActor = (await list({ key: adminKey.raw_key }, `/api/v1/audit-events?actor_user_id=${orgAdmin.id}`)).body;
    expect(byActor.data.length).toBeGreaterThan(0);
    expect(byActor.data.every((e) => e.actor.user_id === orgAdmin.id)).toBe(true);
    const byAction = (await list({ key: adminKey.raw_key }, "/api/v1/audit-events?action=createApiKey")).body;
    expect(byAction.data.length).toBeGreaterThan(0);
    expect(byAction.data.every((e) => e.action === "createApiKey")).toBe(true);
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect(
      (await list({ key: adminKey.raw_key }, `/api/v1/audit-events?since=${encodeURIComponent(future)}`)).body.data,
    ).toEqual([]);
    const past = "2000-01-01T00:00:00Z";
    expect(
      (await list({ key: adminKey.raw_key }, `/api/v1/audit-events?until=${encodeURIComponent(past)}`)).body.data,
    ).toEqual([]);
    const first = (await list({ key: adminKey.raw_key }, "/api/v1/audit-events?limit=2")).body;
    expect(first.data).toHaveLength(2);
    const second = (await list({ key: adminKey.raw_key }, `/api/v1/audit-events?limit=2&cursor=${first.next_cursor}`))
      .body;
    expect(second.data[0]!.id < first.data[1]!.id).toBe(true);
    expect((await list({ key: adminKey.raw_key }, "/api/v1/audit-events?since=yesterday")).status).toBe(400);
  });

  it("is refused to an org admin, and that refusal is itself recorded as denied", async () => {
    const refused = await send(asOrgAdmin, "GET", "/api/v1/audit-events");
    expect(refused.status).toBe(403);
    const [event] = await eventsOf(refused.requestId);
    expect(event).toMatchObject({
      action: "listAuditEvents",
      outcome: "denied",
      actor_user_id: orgAdmin.id,
      actor_auth: "api_key",
      actor_key_prefix: orgAdminKey.key_prefix,
    });
  });
});

describe("GET /api/v1/audit-events?actor_username", () => {
  const as = () => ({ key: adminKey.raw_key });
  it("finds the events of the user by that name, in any case, as actor_user_id does", async () => {
    const byId = (await list(as(), `/api/v1/audit-events?limit=100&actor_user_id=${orgAdmin.id}`)).body;
    const byName = await list(as(), `/api/v1/audit-events?limit=100&actor_username=${orgAdmin.username.toUpperCase()}`);
    expect(byName.status).toBe(200);
    expect(byName.body.data.length).toBeGreaterThan(0);
    expect(byName.body.data.map((e) => e.id)).toEqual(byId.data.map((e) => e.id));
  });

  it("finds nothing for a name nobody has, quotes included, and refuses a name past its bound", async () => {
    for (const name of ["nobody-by-this-name", "' OR '1'='1", "%", "_"])
      expect((await list(as(), `/api/v1/audit-events?actor_username=${encodeURIComponent(name)}`)).body.data).toEqual(
        [],
      );
    expect((await list(as(), `/api/v1/audit-events?actor_username=${"a".repeat(256)}`)).status).toBe(400);
    expect((await list(as(), "/api/v1/audit-events?actor_username=")).status).toBe(400);
  });

  it("does not widen an org admin's view: their organization's events only", async () => {
    const { status, body } = await list(
      asOrgAdmin,
      `/api/v1/organizations/${orgA.id}/audit-events?actor_username=${admin.username}`,
    );
    expect(status).toBe(200);
    expect(body.data.every((e) => e.org_id === orgA.id && e.actor.user_id === admin.id)).toBe(true);
    expect(body.data.map((e) => e.request_id)).not.toContain(changeB.requestId);
  });
});

describe("GET /api/v1/organizations/{org_id}/audit-events", () => {
  it("shows an org admin their organization's events only", async () => {
    const { status, body } = await list(asOrgAdmin, `/api/v1/organizations/${orgA.id}/audit-events`);
    expect(status).toBe(200);
    expect(body.data.map((e) => e.request_id)).toContain(changeA.requestId);
    expect(body.data.every((e) => e.org_id === orgA.id)).toBe(true);
    expect(body.data.map((e) => e.request_id)).not.toContain(changeB.requestId);
  });

  it("refuses another organization's trail (403, recorded as denied)", async () => {
    const refused = await send(asOrgAdmin, "GET", `/api/v1/organizations/${orgB.id}/audit-events`);
    expect(refused.status).toBe(403);
    expect(await eventsOf(refused.requestId)).toMatchObject([
      { action: "listOrgAuditEvents", outcome: "denied", org_id: orgB.id },
    ]);
  });

  it("refuses an org member without svc:org:audit:read", async () => {
    const member = await createUser(client);
    await join(client, member.id, orgA.id);
    await grant(client, member.id, await roleId(client, "org_member"), orgA.id);
    const key = await createApiKey(readContext(systemActor("test")), member.id, {
      name: "m",
      scopes: ["svc:org:read"],
      expires_at: null,
    });
    expect((await list({ key: key.raw_key }, `/api/v1/organizations/${orgA.id}/audit-events`)).status).toBe(403);
  });
});

describe("refused authorizations", () => {
  it("are recorded with outcome denied, and change nothing", async () => {
    const refused = await send(asOrgAdmin, "PUT", `/api/v1/organizations/${orgA.id}/subscription`, {
      tier: "enterprise",
    });
    expect(refused.status).toBe(403);
    expect(await eventsOf(refused.requestId)).toMatchObject([
      {
        action: "updateSubscription",
        outcome: "denied",
        actor_user_id: orgAdmin.id,
        target_type: "organization",
        target_id: orgA.id,
        org_id: orgA.id,
        changes: null,
      },
    ]);
    expect((await client.organization.findUniqueOrThrow({ where: { id: orgA.id } })).subscription_tier).not.toBe(
      "enterprise",
    );
  });
});

describe("sign-ins", () => {
  it("records a success and a failure, with the client's address and User-Agent", async () => {
    const user = await createUser(client);
    const browser = new Browserless(app.baseUrl);
    expect(await browser.signIn(user.username, "not-the-password")).toBe(false);
    expect(await browser.signIn(user.username, PASSWORD)).toBe(true);
    const events = await client.auditEvent.findMany({
      where: { action: "signIn", actor_user_id: user.id },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => e.outcome)).toEqual(["denied", "success"]);
    expect(events[0]).toMatchObject({ actor_auth: "session", target_type: "user", target_id: user.id });
    expect(events[0]!.ip).not.toBeNull();
    expect(JSON.stringify(events)).not.toContain("not-the-password");
  });

  it("records a failed sign-in for nobody known without what was typed", async () => {
    const login = fresh("nobody");
    const before = await client.auditEvent.count({ where: { action: "signIn", outcome: "denied" } });
    expect(await new Browserless(app.baseUrl).signIn(login, "whatever-it-is")).toBe(false);
    expect(await client.auditEvent.count({ where: { action: "signIn", outcome: "denied" } })).toBe(before + 1);
    expect(JSON.stringify(await client.auditEvent.findMany({ where: { action: "signIn" } }))).not.toContain(login);
  });
});
