import { describe, expect, it } from "vitest";
import { totpCode } from "@/server/auth/totp";
import { confirmTwoFactorSetup, startTwoFactorSetup } from "@/server/services/two-factor/service";
import { sessionActor } from "@/test/actors";
import { freePort } from "@/server/free-port";
import { startApp, TEST_ENCRYPTION_KEYS } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createUser, seedRoles } from "@/test/fixtures";
import { CookieBrowser, signInWithOidc, startOidcProvider } from "@/test/oidc-provider";
import { readContext } from "@/server/db/context";

// "Sign in with OpenID Connect" end to end: the production build, configured by AUTH_OIDC_* to use
// a real OpenID Provider started on loopback, driven over HTTP as a browser would (the app's
// sign-in POST, the provider's login and consent forms, the code exchange in the app's callback).

// Two-factor secrets set up in-process are read by the app: the same keys.
process.env.SVC_ENCRYPTION_KEYS = TEST_ENCRYPTION_KEYS;
const { client, url } = await testDatabase();
await seedRoles(client);
const idp = await startOidcProvider({
  accounts: [
    { sub: "alice-sub", email: "Alice@Example.test", email_verified: true, name: "Alice" },
    { sub: "mallory-sub", email: "bob@example.test", email_verified: false },
    { sub: "stranger-sub", email: "stranger@example.test", email_verified: true },
  ],
});
// Auth.js builds its callback URL from AUTH_URL, the app's public URL: Next.js hands route handlers
// its own host (a loopback address always reads "localhost"), never the one the browser used.
const port = await freePort();
const appUrl = `http://localhost:${port}`;
const app = await startApp(url, { ...idp.appEnv, AUTH_URL: appUrl }, { port });
idp.allowRedirectUri(`${appUrl}/api/auth/callback/oidc`);

const alice = await createUser(client, "alice");
await client.user.update({ where: { id: alice.id }, data: { email: "alice@example.test" } });
const bob = await createUser(client, "bob");
await client.user.update({ where: { id: bob.id }, data: { email: "bob@example.test" } });

async function me(browser: CookieBrowser) {
  const response = await app.fetch("/api/v1/me", { headers: { cookie: browser.cookieHeader(appUrl) } });
  return {
    status: response.status,
    body: (await response.json()) as { user?: { id: string; username: string }; auth?: string },
  };
}

describe("sign-in with an OpenID Connect provider", () => {
  it("is offered by Auth.js when AUTH_OIDC_* are set", async () => {
    const providers = (await (await app.fetch("/api/auth/providers")).json()) as Record<
      string,
      { name: string; type: string }
    >;
    expect(providers.oidc).toMatchObject({ name: "Test OpenID", type: "oidc" });
  });

  it("links the identity to the user with the verified email and signs that user in", async () => {
    const browser = new CookieBrowser();
    const { finalUrl } = await signInWithOidc(browser, appUrl, "alice-sub");
    expect(finalUrl.pathname).toBe("/console");
    expect(browser.cookieNames(appUrl)).toContain("__Host-authjs.session-token");
    expect(await me(browser)).toMatchObject({
      status: 200,
      body: { user: { id: alice.id, username: "alice" }, auth: "session" },
    });
    const identities = await client.userOauthIdentity.findMany({ where: { user_id: alice.id } });
    expect(identities).toEqual([expect.objectContaining({ provider: "oauth2", provider_user_id: "alice-sub" })]);
  });

  it("signs in again through the linked identity, even after the email changes", async () => {
    await client.user.update({ where: { id: alice.id }, data: { email: "alice.new@example.test" } });
    const browser = new CookieBrowser();
    await signInWithOidc(browser, appUrl, "alice-sub");
    expect((await me(browser)).body.user?.id).toBe(alice.id);
    expect(await client.userOauthIdentity.count({ where: { user_id: alice.id } })).toBe(1);
  });

  it("refuses an email no user has, creating nobody", async () => {
    const users = await client.user.count();
    const browser = new CookieBrowser();
    const { finalUrl } = await signInWithOidc(browser, appUrl, "stranger-sub");
    expect(finalUrl.pathname).toBe("/console/sign-in");
    expect(finalUrl.searchParams.get("error")).toBe("AccessDenied");
    expect(browser.cookieNames(appUrl)).not.toContain("__Host-authjs.session-token");
    expect((await me(browser)).status).toBe(401);
    expect(await client.user.count()).toBe(users);
    expect(await client.userOauthIdentity.count({ where: { provider_user_id: "stranger-sub" } })).toBe(0);
  });

  it("refuses an email the provider has not verified, even when a user has it", async () => {
    const browser = new CookieBrowser();
    const { finalUrl } = await signInWithOidc(browser, appUrl, "mallory-sub");
    expect(finalUrl.searchParams.get("error")).toBe("AccessDenied");
    expect((await me(browser)).status).toBe(401);
    expect(await client.userOauthIdentity.count({ where: { user_id: bob.id } })).toBe(0);
  });

  it("refuses a linked identity once its user is deleted", async () => {
    await client.user.update({ where: { id: alice.id }, data: { is_deleted: true } });
    try {
      const browser = new CookieBrowser();
      const { finalUrl } = await signInWithOidc(browser, appUrl, "alice-sub");
      expect(finalUrl.searchParams.get("error")).toBe("AccessDenied");
      expect((await me(browser)).status).toBe(401);
    } finally {
      await client.user.update({ where: { id: alice.id }, data: { is_deleted: false } });
    }
  });
});

describe("an external account of a user with two-factor", () => {
  it("is a first factor only: no session until a code is given", async () => {
    idp.addAccount({ sub: "carol-sub", email: "carol@example.test", email_verified: true });
    const carol = await createUser(client, "carol");
    await client.user.update({ where: { id: carol.id }, data: { email: "carol@example.test" } });
    const actor = await sessionActor(client, carol.id);
    const { secret } = await startTwoFactorSetup(readContext(actor));
    await confirmTwoFactorSetup(readContext(actor), { code: totpCode(secret, Date.now() / 1000) });

    const browser = new CookieBrowser();
    const { finalUrl } = await signInWithOidc(browser, appUrl, "carol-sub");
    expect(finalUrl.pathname).toBe("/console/sign-in");
    expect(browser.cookieNames(appUrl)).not.toContain("__Host-authjs.session-token");
    expect((await me(browser)).status).toBe(401);

    const used = (await client.userTwoFactor.findUniqueOrThrow({ where: { user_id: carol.id } }))
      .last_used_step as number;
    const { csrfToken } = (await (await browser.request(`${appUrl}/api/auth/csrf`)).json()) as { csrfToken: string };
    await browser.request(`${appUrl}/api/auth/callback/credentials`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ code: totpCode(secret, (used + 1) * 30), csrfToken }).toString(),
    });
    expect(await me(browser)).toMatchObject({ status: 200, body: { user: { id: carol.id } } });
  });
});
