import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/free-port";
import { request, startApp, TEST_ENCRYPTION_KEYS, type Browserless } from "@/test/app";
import { testDatabase } from "@/test/database";
import {
  createOrg,
  createOrgAdmin,
  createOrgUser,
  createSysAdmin,
  createUser,
  createUserWith,
  seedRoles,
} from "@/test/fixtures";
import { CookieBrowser, followRoundTrip, oidcProviderForms, startOidcProvider } from "@/test/oidc-provider";
import { consoleSession } from "@/test/suite";

// Signing in through an organization's own OpenID Provider, end to end: the production build, a
// real provider (`oidc-provider`) on loopback, the connection made by the org admin over REST, and
// the round trip driven as a browser drives it (start, the provider's login and consent, callback).

process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
const { client, url } = await testDatabase();
await seedRoles(client);
const idp = await startOidcProvider({
  accounts: [
    { sub: "ann-sub", email: "Ann@acme.test", email_verified: true, name: "Ann Archer" },
    { sub: "carl-sub", email: "carl@acme.test", email_verified: true },
    { sub: "root-sub", email: "root@acme.test", email_verified: true },
    { sub: "outsider-sub", email: "eve@elsewhere.test", email_verified: true },
    { sub: "unverified-sub", email: "uma@acme.test", email_verified: false },
  ],
});
const port = await freePort();
const appUrl = `http://localhost:${port}`;
const app = await startApp(url, { AUTH_URL: appUrl, SVC_ALLOW_HTTP_LOOPBACK: "1" }, { port });
afterAll(() => idp.stop());

const org = await createOrg(client, "Acme");
await client.organizationDomain.create({
  data: { org_id: org.id, domain: "acme.test", token: "t", status: "verified", verified_at: new Date() },
});
const orgAdmin = await createOrgAdmin(client, org.id);
const adminSession: Browserless = await consoleSession(app, orgAdmin.username);
const memberRole = await client.role.findUniqueOrThrow({ where: { name: "org_member" } });

interface Connection {
  id: string;
  redirect_uri: string;
  enforce: boolean;
}
const created = await request<Connection & Record<string, unknown>>(
  app,
  { session: adminSession },
  "POST",
  `/api/v1/organizations/${org.id}/sso-connections`,
  {
    type: "oidc",
    domains: ["ACME.test"],
    issuer: idp.issuer,
    client_id: idp.clientId,
    client_secret: idp.clientSecret,
  },
);
const connection = created.body;
idp.allowRedirectUri(connection.redirect_uri);

/** Signs in through /api/sso/start as a browser would; ends where the app sends the browser last. */
async function signInWithSso(browser: CookieBrowser, email: string, login: string) {
  const start = `${appUrl}/api/sso/start?email=${encodeURIComponent(email)}`;
  return followRoundTrip(
    browser,
    appUrl,
    { response: await browser.request(start), url: start },
    oidcProviderForms(login),
    (next) => !next.pathname.startsWith("/api/sso/"),
  );
}

async function me(browser: CookieBrowser) {
  const response = await app.fetch("/api/v1/me", { headers: { cookie: browser.cookieHeader(appUrl) } });
  return { status: response.status, body: (await response.json()) as { user?: { id: string } } };
}

describe("an OIDC connection", () => {
  it("is made by the org admin: the secret is encrypted at rest and never answered", async () => {
    expect(created.status).toBe(201);
    expect(connection).toMatchObject({
      type: "oidc",
      domains: ["acme.test"],
      issuer: idp.issuer,
      default_role_id: memberRole.id,
      redirect_uri: `${appUrl}/api/sso/${connection.id}/oidc/callback`,
    });
    expect(JSON.stringify(created.body)).not.toContain(idp.clientSecret);
    const row = await client.ssoConnection.findUniqueOrThrow({ where: { id: connection.id } });
    expect(row.oidc_client_secret_encrypted).not.toContain(idp.clientSecret);
    const listed = await request(
      app,
      { session: adminSession },
      "GET",
      `/api/v1/organizations/${org.id}/sso-connections`,
    );
    expect(JSON.stringify(listed.body)).not.toContain(idp.clientSecret);
  });

  it("refuses a domain the organization has not verified", async () => {
    const answer = await request(
      app,
      { session: adminSession },
      "POST",
      `/api/v1/organizations/${org.id}/sso-connections`,
      {
        type: "oidc",
        domains: ["unproven.test"],
        issuer: idp.issuer,
        client_id: "x",
        client_secret: "y",
      },
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain("is not a verified domain of the organization");
  });

  it("refuses an issuer the app must not call: an internal address, or plain http elsewhere", async () => {
    for (const issuer of ["https://169.254.169.254/latest", "https://10.0.0.7", "http://idp.example.com"]) {
      const answer = await request(
        app,
        { session: adminSession },
        "POST",
        `/api/v1/organizations/${org.id}/sso-connections`,
        {
          type: "oidc",
          domains: ["acme.test"],
          issuer,
          client_id: "x",
          client_secret: "y",
        },
      );
      expect(answer.status, issuer).toBe(400);
      expect(JSON.stringify(answer.body), issuer).toMatch(/issuer/);
    }
  });
});

describe("signing in through it", () => {
  it("makes a new person a user and a member just in time, and records the connection on the session", async () => {
    const browser = new CookieBrowser();
    const { finalUrl } = await signInWithSso(browser, "ann@acme.test", "ann-sub");
    expect(finalUrl.pathname).toBe("/console");
    const { status, body } = await me(browser);
    expect(status).toBe(200);
    const user = await client.user.findUniqueOrThrow({ where: { id: body.user!.id } });
    expect(user).toMatchObject({ email: "ann@acme.test", display_name: "Ann Archer" });
    expect(user.email_verified_at).not.toBeNull();
    expect(await client.userRole.findMany({ where: { user_id: user.id } })).toEqual([
      expect.objectContaining({ org_id: org.id, role_id: memberRole.id }),
    ]);
    const audit = await client.auditEvent.findMany({
      where: { OR: [{ actor_user_id: user.id }, { target_id: user.id }], action: { in: ["signIn", "joinBySso"] } },
      orderBy: { occurred_at: "asc" },
    });
    expect(audit.map((a) => [a.action, a.outcome, a.target_id, a.org_id])).toEqual([
      ["joinBySso", "success", user.id, org.id],
      ["signIn", "success", connection.id, org.id],
    ]);
  });

  it("signs the same person in again as the same user", async () => {
    const users = await client.user.count();
    const browser = new CookieBrowser();
    await signInWithSso(browser, "ann@acme.test", "ann-sub");
    const ann = await client.user.findFirstOrThrow({ where: { email: "ann@acme.test" } });
    expect((await me(browser)).body.user?.id).toBe(ann.id);
    expect(await client.user.count()).toBe(users);
  });

  it("links an existing user by verified email, and refuses one holding a system role", async () => {
    const carl = await createUser(client, "carl");
    await client.user.update({
      where: { id: carl.id },
      data: { email: "carl@acme.test", email_verified_at: new Date() },
    });
    const browser = new CookieBrowser();
    await signInWithSso(browser, "carl@acme.test", "carl-sub");
    expect((await me(browser)).body.user?.id).toBe(carl.id);

    const root = await createSysAdmin(client);
    await client.user.update({
      where: { id: root.id },
      data: { email: "root@acme.test", email_verified_at: new Date() },
    });
    const refused = new CookieBrowser();
    const { finalUrl } = await signInWithSso(refused, "root@acme.test", "root-sub");
    expect(finalUrl.pathname).toBe("/console/sign-in");
    expect(finalUrl.searchParams.get("sso_error")).toBe("account_not_linkable");
    const errorId = finalUrl.searchParams.get("error_id");
    expect(errorId).toBeTruthy();
    expect((await me(refused)).status).toBe(401);
    const audited = await client.auditEvent.findFirstOrThrow({ where: { request_id: errorId!, action: "signIn" } });
    expect(audited).toMatchObject({ outcome: "denied", target_id: connection.id, org_id: org.id });
    expect(JSON.stringify(audited.changes)).toContain("system role");
  });

  it("refuses an address outside the connection's domains, and one the IdP says is unverified", async () => {
    for (const [email, login, code] of [
      ["eve@acme.test", "outsider-sub", "email_not_covered"],
      ["uma@acme.test", "unverified-sub", "invalid_response"],
    ] as const) {
      const browser = new CookieBrowser();
      const { finalUrl } = await signInWithSso(browser, email, login);
      expect(finalUrl.searchParams.get("sso_error")).toBe(code);
      expect((await me(browser)).status).toBe(401);
    }
    expect(await client.user.count({ where: { email: { in: ["eve@elsewhere.test", "uma@acme.test"] } } })).toBe(0);
  });

  it("admits nobody at a domain the organization no longer holds verified", async () => {
    const browser = new CookieBrowser();
    const start = `${appUrl}/api/sso/start?email=ann@acme.test`;
    // The flow starts while the domain is verified; the domain fails before the IdP sends the person back.
    const { finalUrl: callback } = await followRoundTrip(
      browser,
      appUrl,
      { response: await browser.request(start), url: start },
      oidcProviderForms("ann-sub"),
      (next) => next.pathname.endsWith("/oidc/callback"),
    );
    await client.organizationDomain.updateMany({
      where: { org_id: org.id, domain: "acme.test" },
      data: { status: "failed" },
    });
    try {
      const response = await browser.request(callback.href);
      expect(new URL(response.headers.get("location")!).searchParams.get("sso_error")).toBe("email_not_covered");
      expect((await me(browser)).status).toBe(401);
    } finally {
      await client.organizationDomain.updateMany({
        where: { org_id: org.id, domain: "acme.test" },
        data: { status: "verified" },
      });
    }
  });

  it("sends an address no connection covers back to the sign-in page", async () => {
    const browser = new CookieBrowser();
    const response = await browser.request(`${appUrl}/api/sso/start?email=someone@nowhere.test`);
    expect(response.status).toBe(303);
    const location = new URL(response.headers.get("location")!);
    expect(location.pathname).toBe("/console/sign-in");
    expect(location.searchParams.get("sso_error")).toBe("no_connection");
  });
});

describe("enforce", () => {
  const orgPath = `/api/v1/organizations/${org.id}`;
  const connectionPath = () => `${orgPath}/sso-connections/${connection.id}`;

  it("cannot be turned on from a session that would be shut out by it", async () => {
    const answer = await request(app, { session: adminSession }, "PATCH", connectionPath(), { enforce: true });
    expect(answer.status).toBe(409);
    expect((await client.ssoConnection.findUniqueOrThrow({ where: { id: connection.id } })).enforce).toBe(false);
  });

  it("keeps password sessions out of the organization at once, and lets SSO sessions and sys_admins in", async () => {
    // An org admin of the organization, signed in through its connection (linked by verified email).
    const olga = await createOrgAdmin(client, org.id);
    await client.user.update({
      where: { id: olga.id },
      data: { email: "olga@acme.test", email_verified_at: new Date() },
    });
    idp.addAccount({ sub: "olga-sub", email: "olga@acme.test", email_verified: true });
    const olgaBySso = new CookieBrowser();
    await signInWithSso(olgaBySso, "olga@acme.test", "olga-sub");
    const asOlga = (method: string, path: string, body?: unknown) =>
      fetch(`${appUrl}${path}`, {
        method,
        headers: {
          cookie: olgaBySso.cookieHeader(appUrl),
          "sec-fetch-site": "same-origin",
          ...(body ? { "content-type": "application/json" } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    const member = await createOrgUser(client, org.id, "org_member");
    const memberByPassword = await consoleSession(app, member.username);
    expect((await request(app, { session: memberByPassword }, "GET", orgPath)).status).toBe(200);
    // Organization permissions held through a system role (not sys_admin) are no key past enforce either.
    const reader = await consoleSession(app, (await createUserWith(client, ["svc:org:read"])).username);
    expect((await request(app, { session: reader }, "GET", orgPath)).status).toBe(200);

    expect((await asOlga("PATCH", connectionPath(), { enforce: true })).status).toBe(200);

    expect((await request(app, { session: memberByPassword }, "GET", orgPath)).status).toBe(404);
    expect((await request(app, { session: adminSession }, "GET", orgPath)).status).toBe(404);
    expect((await request(app, { session: reader }, "GET", orgPath)).status).toBe(403);
    expect((await asOlga("GET", orgPath)).status).toBe(200);
    const root = await createSysAdmin(client);
    expect((await request(app, { session: await consoleSession(app, root.username) }, "GET", orgPath)).status).toBe(
      200,
    );

    expect((await asOlga("PATCH", connectionPath(), { enforce: false })).status).toBe(200);
    expect((await request(app, { session: memberByPassword }, "GET", orgPath)).status).toBe(200);

    // A disabled connection that keeps enforce on starts enforcing when enabled: the same rule holds.
    expect((await asOlga("PATCH", connectionPath(), { enabled: false, enforce: true })).status).toBe(200);
    const enable = await request(app, { session: adminSession }, "PATCH", connectionPath(), { enabled: true });
    expect(enable.status).toBe(409);
    expect((await asOlga("PATCH", connectionPath(), { enabled: true, enforce: false })).status).toBe(200);
  });

  it("shuts a session made through one organization's connection out of another that enforces its own", async () => {
    const other = await createOrg(client, "Bolt");
    await client.organizationDomain.create({
      data: { org_id: other.id, domain: "bolt.test", token: "t", status: "verified", verified_at: new Date() },
    });
    const root = await consoleSession(app, (await createSysAdmin(client)).username);
    // Ann belongs to both, added the way an administrator adds her; she signs in through Acme's connection.
    const ann = await client.user.findFirstOrThrow({ where: { email: "ann@acme.test" } });
    const members = `/api/v1/organizations/${other.id}/members`;
    expect((await request(app, { session: root }, "POST", members, { user_id: ann.id })).status).toBe(201);
    const granted = await request(app, { session: root }, "POST", `${members}/${ann.id}/roles`, {
      role_id: memberRole.id,
    });
    expect(granted.status).toBeLessThan(300);
    const annBySso = new CookieBrowser();
    await signInWithSso(annBySso, "ann@acme.test", "ann-sub");
    const asAnn = (path: string) => fetch(`${appUrl}${path}`, { headers: { cookie: annBySso.cookieHeader(appUrl) } });
    expect((await asAnn(`/api/v1/organizations/${other.id}`)).status).toBe(200);

    const bolt = await request<Connection>(
      app,
      { session: root },
      "POST",
      `/api/v1/organizations/${other.id}/sso-connections`,
      {
        type: "oidc",
        domains: ["bolt.test"],
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret: idp.clientSecret,
        enforce: true,
      },
    );
    expect(bolt.status).toBe(201);
    expect((await asAnn(orgPath)).status).toBe(200);
    expect((await asAnn(`/api/v1/organizations/${other.id}`)).status).toBe(404);
  });
});
