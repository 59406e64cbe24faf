import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "@/server/free-port";
import { request, startApp, TEST_ENCRYPTION_KEYS } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createOrg, createOrgAdmin, seedRoles } from "@/test/fixtures";
import { CookieBrowser, followRoundTrip } from "@/test/oidc-provider";
import { billionLaughsResponse, startSamlIdp, xxeResponse, type SamlResponseOptions } from "@/test/saml-idp";
import { consoleSession } from "@/test/suite";

// Signing in through an organization's SAML 2.0 identity provider, end to end: the production
// build, a real IdP (samlify's IdP role, its key made at start) signing real responses, the
// connection made over REST from the IdP's pasted metadata — and the responses an attacker posts.

process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
const { client, url } = await testDatabase();
await seedRoles(client);
const idp = await startSamlIdp();
const port = await freePort();
const appUrl = `http://localhost:${port}`;
const app = await startApp(url, { AUTH_URL: appUrl, SVC_ALLOW_HTTP_LOOPBACK: "1" }, { port });
afterAll(() => idp.stop());

const org = await createOrg(client, "Saml Corp");
const other = await createOrg(client, "Other Corp");
for (const [orgId, domain] of [
  [org.id, "saml.test"],
  [other.id, "other.test"],
] as const)
  await client.organizationDomain.create({
    data: { org_id: orgId, domain, token: "t", status: "verified", verified_at: new Date() },
  });
const adminSession = await consoleSession(app, (await createOrgAdmin(client, org.id)).username);
const otherAdminSession = await consoleSession(app, (await createOrgAdmin(client, other.id)).username);

interface Connection {
  id: string;
  sp_entity_id: string;
  acs_url: string;
  metadata_url: string;
  idp_entity_id: string;
}
async function connect(session: typeof adminSession, orgId: string, body: Record<string, unknown>) {
  return request<Connection>(app, { session }, "POST", `/api/v1/organizations/${orgId}/sso-connections`, {
    type: "saml",
    ...body,
  });
}
const created = await connect(adminSession, org.id, { domains: ["saml.test"], idp_metadata_xml: idp.metadataXml });
const connection = created.body;
const otherConnection = (
  await connect(otherAdminSession, other.id, {
    domains: ["other.test"],
    idp_entity_id: idp.entityId,
    idp_sso_url: idp.ssoUrl,
    idp_certificates: [idp.certificatePem],
    allow_idp_initiated: true,
  })
).body;

const forConnection = (c: Connection) => ({ acsUrl: c.acs_url, spEntityId: c.sp_entity_id });

/** Starts a sign-in as a browser: the app's redirect to the IdP, and the request it carries. */
async function start(browser: CookieBrowser, email: string) {
  const response = await browser.request(`${appUrl}/api/sso/start?email=${encodeURIComponent(email)}`);
  expect(response.status).toBe(303);
  const location = response.headers.get("location")!;
  expect(location.startsWith(idp.ssoUrl)).toBe(true);
  return idp.readRequest(location);
}

/** Posts a SAMLResponse to an ACS as the IdP's auto-posting page would; answers where the app sends the browser. */
async function post(browser: CookieBrowser, acsUrl: string, samlResponse: string) {
  const response = await browser.request(acsUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: "" }).toString(),
  });
  expect(response.status).toBe(303);
  return new URL(response.headers.get("location")!);
}

async function me(browser: CookieBrowser) {
  const response = await app.fetch("/api/v1/me", { headers: { cookie: browser.cookieHeader(appUrl) } });
  return { status: response.status, body: (await response.json()) as { user?: { id: string } } };
}

/** A full sign-in: start, the IdP's answer to that request (with `changes`), the post to the ACS. */
async function signIn(email: string, changes: Partial<SamlResponseOptions> = {}) {
  const browser = new CookieBrowser();
  const asked = await start(browser, email);
  const answer = await idp.respond({ ...forConnection(connection), inResponseTo: asked.id, email, ...changes });
  const landed = await post(browser, changes.acsUrl ?? connection.acs_url, answer.samlResponse);
  return { browser, landed, answer, asked };
}

async function expectRefused(
  outcome: { browser: CookieBrowser; landed: URL },
  code = "invalid_response",
  reason?: RegExp,
) {
  expect(outcome.landed.pathname).toBe("/console/sign-in");
  expect(outcome.landed.searchParams.get("sso_error")).toBe(code);
  expect((await me(outcome.browser)).status).toBe(401);
  const audited = await client.auditEvent.findFirstOrThrow({
    where: { request_id: outcome.landed.searchParams.get("error_id")!, action: "signIn" },
  });
  expect(audited.outcome).toBe("denied");
  if (reason) expect(JSON.stringify(audited.changes)).toMatch(reason);
}

describe("a SAML connection", () => {
  it("is made from the IdP's pasted metadata, and serves this app's SP metadata", async () => {
    expect(created.status).toBe(201);
    expect(connection).toMatchObject({
      idp_entity_id: idp.entityId,
      sp_entity_id: `${appUrl}/api/sso/${connection.id}/saml/metadata`,
      acs_url: `${appUrl}/api/sso/${connection.id}/saml/acs`,
    });
    const metadata = await app.fetch(`/api/sso/${connection.id}/saml/metadata`);
    expect(metadata.headers.get("content-type")).toContain("samlmetadata+xml");
    const xml = await metadata.text();
    expect(xml).toContain(`entityID="${connection.sp_entity_id}"`);
    expect(xml).toContain(`Location="${connection.acs_url}"`);
  });

  it("refuses metadata with a DTD, metadata that is no IdP's, and XML that is not", async () => {
    for (const idp_metadata_xml of [
      `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idp.metadataXml.replace(/^<\?xml[^>]*>/, "")}`,
      "<EntityDescriptor xmlns='urn:oasis:names:tc:SAML:2.0:metadata' entityID='x'/>",
      "<EntityDescriptor",
    ]) {
      const answer = await connect(adminSession, org.id, { domains: ["saml.test"], idp_metadata_xml });
      expect(answer.status).toBe(400);
      expect(JSON.stringify(answer.body)).toContain("idp_metadata_xml");
    }
  });
});

describe("signing in through it", () => {
  it("signs a new person in as a member, from a signed assertion", async () => {
    const { browser, landed } = await signIn("sam@saml.test", { firstName: "Sam", lastName: "Sable" });
    expect(landed.pathname).toBe("/console");
    const { status, body } = await me(browser);
    expect(status).toBe(200);
    const user = await client.user.findUniqueOrThrow({ where: { id: body.user!.id } });
    expect(user).toMatchObject({ email: "sam@saml.test", display_name: "Sam Sable" });
    expect(await client.userOrgMembership.count({ where: { user_id: user.id, org_id: org.id } })).toBe(1);
  });

  it("goes round through the IdP's own login page, as a browser does", async () => {
    const browser = new CookieBrowser();
    const startUrl = `${appUrl}/api/sso/start?email=pat@saml.test`;
    const { finalUrl } = await followRoundTrip(
      browser,
      appUrl,
      { response: await browser.request(startUrl), url: startUrl },
      (html): Record<string, string> => (/name="email"/.test(html) ? { email: "pat@saml.test" } : {}),
      (next) => !next.pathname.startsWith("/api/sso/"),
    );
    expect(finalUrl.pathname).toBe("/console");
    expect((await me(browser)).status).toBe(200);
  });

  it("accepts a response signed as a whole instead of its assertion", async () => {
    const { landed } = await signIn("sam@saml.test", { variant: "signed-response" });
    expect(landed.pathname).toBe("/console");
  });
});

describe("responses an attacker posts", () => {
  it("refuses an unsigned assertion", async () => {
    await expectRefused(await signIn("sam@saml.test", { variant: "unsigned" }), "invalid_response", /signature/i);
  });

  it("refuses a signature over another element (signature wrapping)", async () => {
    const outcome = await signIn("sam@saml.test", { variant: "wrapped", forgedEmail: "boss@saml.test" });
    await expectRefused(outcome, "invalid_response", /signature/i);
    expect(await client.user.count({ where: { email: "boss@saml.test" } })).toBe(0);
  });

  it("reads a name split by a comment whole (comment truncation), signing no one in as the shorter name", async () => {
    const boss = await createOrgAdmin(client, org.id);
    await client.user.update({
      where: { id: boss.id },
      data: { email: "boss@saml.test", email_verified_at: new Date() },
    });
    const browser = new CookieBrowser();
    const asked = await start(browser, "boss@saml.test");
    const answer = await idp.respond({
      ...forConnection(connection),
      inResponseTo: asked.id,
      email: "boss@saml.test.attacker.test",
    });
    // Comments are outside the signature's canonical form: inserting one keeps the signature valid.
    const xml = Buffer.from(answer.samlResponse, "base64")
      .toString("utf8")
      .replaceAll(">boss@saml.test.attacker.test<", ">boss@saml.test<!---->.attacker.test<");
    expect(xml.match(/<!---->/g)).toHaveLength(2);
    const landed = await post(browser, connection.acs_url, Buffer.from(xml).toString("base64"));
    await expectRefused({ browser, landed }, "email_not_covered", /saml\.test\.attacker\.test/);
    expect(await client.userOauthIdentity.count({ where: { user_id: boss.id } })).toBe(0);
  });

  it("refuses a signature by a key the IdP's metadata does not hold", async () => {
    await expectRefused(await signIn("sam@saml.test", { variant: "other-key" }), "invalid_response", /signature/i);
  });

  it("refuses SHA-1", async () => {
    await expectRefused(await signIn("sam@saml.test", { variant: "sha1" }), "invalid_response", /SHA-1/);
  });

  it("refuses a replayed assertion", async () => {
    // Unasked responses (allowed on this connection) answer no request: only the replay cache stops a second use.
    const unasked = await idp.respond({ ...forConnection(otherConnection), email: "olive@other.test" });
    const first = new CookieBrowser();
    expect((await post(first, otherConnection.acs_url, unasked.samlResponse)).pathname).toBe("/console");
    const again = new CookieBrowser();
    await expectRefused(
      { browser: again, landed: await post(again, otherConnection.acs_url, unasked.samlResponse) },
      "invalid_response",
      /replay/,
    );
  });

  it("refuses a response for another service provider, and one posted to another connection", async () => {
    await expectRefused(
      await signIn("sam@saml.test", { audience: "https://another-sp.example/metadata" }),
      "invalid_response",
      /audience/,
    );
    // A response made for this connection, posted to another's ACS (which takes IdP-initiated ones).
    const browser = new CookieBrowser();
    const asked = await start(browser, "sam@saml.test");
    const answer = await idp.respond({ ...forConnection(connection), inResponseTo: asked.id, email: "sam@saml.test" });
    await expectRefused(
      { browser, landed: await post(browser, otherConnection.acs_url, answer.samlResponse) },
      "invalid_response",
      /Destination/,
    );
  });

  it("refuses an expired assertion", async () => {
    await expectRefused(
      await signIn("sam@saml.test", { notOnOrAfter: new Date(Date.now() - 10 * 60_000) }),
      "invalid_response",
      /no valid subject confirmation|expired/i,
    );
  });

  it("refuses an IdP-initiated response unless the connection allows them", async () => {
    const browser = new CookieBrowser();
    const unasked = await idp.respond({ ...forConnection(connection), email: "sam@saml.test" });
    await expectRefused(
      { browser, landed: await post(browser, connection.acs_url, unasked.samlResponse) },
      "invalid_response",
      /InResponseTo is missing/,
    );
    const allowed = await idp.respond({ ...forConnection(otherConnection), email: "olive@other.test" });
    const landed = await post(browser, otherConnection.acs_url, allowed.samlResponse);
    expect(landed.pathname).toBe("/console");
  });

  it("refuses a response to a request this browser did not make (login CSRF), or that nobody made", async () => {
    // The attacker signs in at the IdP as themself, then has the victim's browser post the answer.
    const attacker = new CookieBrowser();
    const asked = await start(attacker, "mallory@saml.test");
    const answer = await idp.respond({
      ...forConnection(connection),
      inResponseTo: asked.id,
      email: "mallory@saml.test",
    });
    const victim = new CookieBrowser();
    await expectRefused(
      { browser: victim, landed: await post(victim, connection.acs_url, answer.samlResponse) },
      "invalid_response",
      /did not make/,
    );
    const forged = await idp.respond({
      ...forConnection(connection),
      inResponseTo: "_made-up",
      email: "sam@saml.test",
    });
    await start(victim, "sam@saml.test");
    await expectRefused(
      { browser: victim, landed: await post(victim, connection.acs_url, forged.samlResponse) },
      "invalid_response",
      /did not make/,
    );
    expect(await client.user.count({ where: { email: "mallory@saml.test" } })).toBe(0);
  });

  it("refuses XXE and billion-laughs payloads unread, XML that is not, and a response over 256 KiB", async () => {
    for (const payload of [xxeResponse(connection.acs_url), billionLaughsResponse(connection.acs_url)]) {
      const browser = new CookieBrowser();
      await expectRefused(
        { browser, landed: await post(browser, connection.acs_url, payload) },
        "invalid_response",
        /document type declaration/,
      );
    }
    const garbled = new CookieBrowser();
    await expectRefused(
      {
        browser: garbled,
        landed: await post(garbled, connection.acs_url, Buffer.from("<samlp:Response").toString("base64")),
      },
      "invalid_response",
      /well-formed/,
    );
    const browser = new CookieBrowser();
    const huge = Buffer.from(`<x>${"a".repeat(300 * 1024)}</x>`).toString("base64");
    await expectRefused(
      { browser, landed: await post(browser, connection.acs_url, huge) },
      "invalid_response",
      /256 KiB|512 KiB/,
    );
  });

  it("refuses an address outside the connection's domains", async () => {
    await expectRefused(await signIn("sam@saml.test", { email: "olive@other.test" }), "email_not_covered");
  });
});

describe("many sign-ins from one address", () => {
  it("are limited: past 120 a minute, the sign-in page says to wait", async () => {
    const browser = new CookieBrowser();
    let last: URL | undefined;
    for (let i = 0; i < 125 && last?.searchParams.get("sso_error") !== "rate_limited"; i++) {
      const response = await browser.request(`${appUrl}/api/sso/start?email=sam@saml.test`);
      last = new URL(response.headers.get("location")!);
    }
    expect(last?.pathname).toBe("/console/sign-in");
    expect(last?.searchParams.get("sso_error")).toBe("rate_limited");
  });
});
