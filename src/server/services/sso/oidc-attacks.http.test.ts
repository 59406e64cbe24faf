import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/free-port";
import { request, startApp, TEST_ENCRYPTION_KEYS } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, createOrgUser, seedRoles } from "@/test/fixtures";
import { CookieBrowser, followRoundTrip, oidcProviderForms, startOidcProvider } from "@/test/oidc-provider";
import { startRogueOidcProvider } from "@/test/rogue-oidc-provider";
import { consoleSession } from "@/test/suite";

// What an attacker tries against an organization's OIDC connection: ID tokens a hostile provider
// bends (issuer, audience, expiry, nonce, key, no signature), callbacks taken from one flow into
// another or replayed, a provider vouching for another organization's people, and the start
// endpoint's test mode without the right to it. Each ends on the sign-in page, signed out, audited.

process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
const { client, url } = await testDatabase();
await seedRoles(client);
const honest = await startOidcProvider({
  accounts: [{ sub: "ann-sub", email: "ann@acme.test", email_verified: true }],
});
const rogue = await startRogueOidcProvider({ sub: "rex-sub", email: "rex@rogue.test" });
const port = await freePort();
const appUrl = `http://localhost:${port}`;
const app = await startApp(url, { AUTH_URL: appUrl, SVC_ALLOW_HTTP_LOOPBACK: "1" }, { port });
afterAll(async () => {
  await honest.stop();
  await rogue.stop();
});

async function orgWithDomain(name: string, domain: string) {
  const org = await createOrg(client, name);
  await client.organizationDomain.create({
    data: { org_id: org.id, domain, token: "t", status: "verified", verified_at: new Date() },
  });
  return org;
}
const acme = await orgWithDomain("Acme", "acme.test");
const rogueOrg = await orgWithDomain("Rogue", "rogue.test");
const bossOrg = await orgWithDomain("Boss", "boss.test");
const parked = await orgWithDomain("Parked", "parked.test");

async function connect(orgId: string, body: Record<string, unknown>) {
  const admin = await consoleSession(app, (await createOrgAdmin(client, orgId)).username);
  const answer = await request<{ id: string; redirect_uri: string }>(
    app,
    { session: admin },
    "POST",
    `/api/v1/organizations/${orgId}/sso-connections`,
    { type: "oidc", ...body },
  );
  expect(answer.status).toBe(201);
  return answer.body;
}
const acmeConnection = await connect(acme.id, {
  domains: ["acme.test"],
  issuer: honest.issuer,
  client_id: honest.clientId,
  client_secret: honest.clientSecret,
});
honest.allowRedirectUri(acmeConnection.redirect_uri);
const rogueConnection = await connect(rogueOrg.id, {
  domains: ["rogue.test"],
  issuer: rogue.issuer,
  client_id: rogue.clientId,
  client_secret: rogue.clientSecret,
});
await connect(parked.id, {
  domains: ["parked.test"],
  issuer: honest.issuer,
  client_id: honest.clientId,
  client_secret: honest.clientSecret,
  enabled: false,
});

const startUrl = (email: string) => `${appUrl}/api/sso/start?email=${encodeURIComponent(email)}`;
const signedOut = async (browser: CookieBrowser) =>
  (await app.fetch("/api/v1/me", { headers: { cookie: browser.cookieHeader(appUrl) } })).status === 401;

/** Follows a round trip until the browser lands back in the app outside /api/sso. */
async function roundTrip(browser: CookieBrowser, email: string, login = "") {
  const start = startUrl(email);
  return followRoundTrip(
    browser,
    appUrl,
    { response: await browser.request(start), url: start },
    oidcProviderForms(login),
    (next) => !next.pathname.startsWith("/api/sso/"),
  );
}

/** Follows the honest provider's login up to, not into, the app's callback: the URL the IdP sends back. */
async function callbackUrlOf(browser: CookieBrowser, email: string, login: string) {
  const start = startUrl(email);
  const first = await browser.request(start);
  const state = new URL(first.headers.get("location")!).searchParams.get("state")!;
  const { finalUrl } = await followRoundTrip(
    browser,
    appUrl,
    { response: first, url: start },
    oidcProviderForms(login),
    (next) => next.pathname.endsWith("/oidc/callback"),
  );
  return { callback: finalUrl, state };
}

/** Requests `target` in the app and expects the refusal: the sign-in page, no session, a denied sign-in audited. */
async function expectRefused(browser: CookieBrowser, landed: URL, code: string, reason?: RegExp) {
  expect(landed.pathname).toBe("/console/sign-in");
  expect(landed.searchParams.get("sso_error")).toBe(code);
  expect(await signedOut(browser)).toBe(true);
  const audited = await client.auditEvent.findFirstOrThrow({
    where: { request_id: landed.searchParams.get("error_id")!, action: "signIn" },
  });
  expect(audited.outcome).toBe("denied");
  if (reason) expect(JSON.stringify(audited.changes)).toMatch(reason);
}

async function visit(browser: CookieBrowser, target: URL | string) {
  const response = await browser.request(String(target));
  expect(response.status).toBe(303);
  return new URL(response.headers.get("location")!);
}

describe("ID tokens a hostile provider mints", () => {
  it("an honest one signs in (the provider itself works)", async () => {
    const browser = new CookieBrowser();
    expect((await roundTrip(browser, "rex@rogue.test")).finalUrl.pathname).toBe("/console");
    expect(await signedOut(browser)).toBe(false);
  });

  it.each([
    ["from another issuer", { iss: "https://other-issuer.example" }],
    ["for another audience", { aud: "someone-else" }],
    ["expired", { exp: Math.floor(Date.now() / 1000) - 3600 }],
    ["with the nonce of another flow", { nonce: "nonce-of-another-flow" }],
    ["signed by a key the provider does not publish", { sign: "other-key" as const }],
    ["unsigned (alg none)", { sign: "none" as const }],
  ])("refuses one %s", async (_name, tampering) => {
    const users = await client.user.count();
    rogue.tamper(tampering);
    const browser = new CookieBrowser();
    const { finalUrl } = await roundTrip(browser, "rex@rogue.test");
    await expectRefused(browser, finalUrl, "invalid_response", /ID token failed/);
    expect(await client.user.count()).toBe(users);
  });

  it("refuses a provider vouching for another organization's people, linking nobody", async () => {
    const boss = await createOrgAdmin(client, bossOrg.id);
    await client.user.update({
      where: { id: boss.id },
      data: { email: "boss@boss.test", email_verified_at: new Date() },
    });
    rogue.tamper({ email: "boss@boss.test" });
    const browser = new CookieBrowser();
    const { finalUrl } = await roundTrip(browser, "rex@rogue.test");
    await expectRefused(browser, finalUrl, "email_not_covered");
    expect(await client.userOauthIdentity.count({ where: { user_id: boss.id } })).toBe(0);
  });
});

describe("callbacks taken out of their flow", () => {
  it("refuses a callback with another flow's state", async () => {
    const { callback } = await callbackUrlOf(new CookieBrowser(), "ann@acme.test", "ann-sub");
    const victim = new CookieBrowser();
    await victim.request(startUrl("ann@acme.test"));
    await expectRefused(victim, await visit(victim, callback), "invalid_response", /code exchange/);
  });

  it("refuses one code with another flow's state (its PKCE verifier and nonce are the other flow's)", async () => {
    const { callback } = await callbackUrlOf(new CookieBrowser(), "ann@acme.test", "ann-sub");
    const victim = new CookieBrowser();
    const state = new URL((await victim.request(startUrl("ann@acme.test"))).headers.get("location")!).searchParams.get(
      "state",
    )!;
    callback.searchParams.set("state", state);
    await expectRefused(victim, await visit(victim, callback), "invalid_response", /code exchange/);
  });

  it("refuses a callback in a browser that started no flow (login CSRF)", async () => {
    const { callback } = await callbackUrlOf(new CookieBrowser(), "ann@acme.test", "ann-sub");
    const victim = new CookieBrowser();
    await expectRefused(victim, await visit(victim, callback), "invalid_response", /no sign-in/);
  });

  it("refuses a flow of one connection at another connection's callback", async () => {
    const browser = new CookieBrowser();
    const { callback } = await callbackUrlOf(browser, "ann@acme.test", "ann-sub");
    callback.pathname = new URL(rogueConnection.redirect_uri).pathname;
    await expectRefused(browser, await visit(browser, callback), "invalid_response", /no sign-in/);
  });

  it("refuses the same callback twice", async () => {
    const browser = new CookieBrowser();
    const { callback } = await callbackUrlOf(browser, "ann@acme.test", "ann-sub");
    expect((await visit(browser, callback)).pathname).toBe("/console");
    const again = new CookieBrowser();
    await expectRefused(again, await visit(again, callback), "invalid_response");
  });

  it("reports an IdP's refusal as such", async () => {
    const browser = new CookieBrowser();
    const state = new URL((await browser.request(startUrl("ann@acme.test"))).headers.get("location")!).searchParams.get(
      "state",
    )!;
    const callback = new URL(acmeConnection.redirect_uri);
    callback.search = new URLSearchParams({ error: "access_denied", state }).toString();
    await expectRefused(browser, await visit(browser, callback), "identity_provider_refused", /access_denied/);
  });
});

describe("the start endpoint", () => {
  it("finds no connection that is disabled", async () => {
    const landed = await visit(new CookieBrowser(), startUrl("pat@parked.test"));
    expect(landed.pathname).toBe("/console/sign-in");
    expect(landed.searchParams.get("sso_error")).toBe("no_connection");
  });

  it("sends the browser only to the connection's IdP, whatever else the query says", async () => {
    const landed = await visit(
      new CookieBrowser(),
      `${startUrl("ann@acme.test")}&callbackUrl=https://evil.example/&redirect_uri=https://evil.example/cb`,
    );
    expect(landed.origin).toBe(new URL(honest.issuer).origin);
    expect(landed.searchParams.get("redirect_uri")).toBe(acmeConnection.redirect_uri);
  });

  it("starts no test round trip for a caller who may not change the connection", async () => {
    const member = await createOrgUser(client, acme.id, "org_member");
    const session = await consoleSession(app, member.username);
    const testUrl = `/api/sso/start?connection_id=${acmeConnection.id}&test=1`;
    for (const response of [await app.fetch(testUrl, { redirect: "manual" }), await session.fetch(testUrl)]) {
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get("location")!).pathname).toBe("/console/sign-in");
    }
  });
});
