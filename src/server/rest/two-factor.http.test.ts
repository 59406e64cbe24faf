import { describe, expect, it } from "vitest";
import { totpCode } from "@/server/auth/totp";
import { Browserless, request, startApp, type Caller, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createSysAdmin, createUser, createUserWith, PASSWORD, seedRoles } from "@/test/fixtures";

// Two-factor sign-in over real HTTP, as a browser and as an attacker would try it: no session after
// the password alone, codes used once, wrong codes throttled and counted as failed
// authentications, the platform's requirement for sys_admins, and who may reset another's.

const { client, url } = await testDatabase();
await seedRoles(client);
const app = await startApp(url);
const call = <T = Record<string, unknown>>(as: Caller, method: string, path: string, body?: unknown) =>
  request<T>(app, as, method, path, body);

async function signedIn(userId: string, target: RunningApp = app): Promise<Browserless> {
  const user = await client.user.findUniqueOrThrow({ where: { id: userId } });
  const browser = new Browserless(target.baseUrl);
  expect(await browser.signIn(user.username, PASSWORD)).toBe(true);
  return browser;
}

interface TwoFactor {
  secret: string;
  recoveryCodes: string[];
}

/** Sets two-factor up as the user would, from a signed-in session. */
async function setUp(session: Browserless): Promise<TwoFactor> {
  const setup = await call<{ secret: string; otpauth_url: string }>({ session }, "POST", "/api/v1/me/two-factor/setup");
  expect(setup.status).toBe(200);
  expect(setup.headers.get("cache-control")).toBe("no-store");
  const confirmed = await call<{ recovery_codes: string[] }>({ session }, "POST", "/api/v1/me/two-factor/confirm", {
    code: totpCode(setup.body.secret, Date.now() / 1000),
  });
  expect(confirmed.status).toBe(200);
  return { secret: setup.body.secret, recoveryCodes: confirmed.body.recovery_codes };
}

/** A code not used yet: of the step after the last one accepted (within the ±1 step window). */
async function freshCode(userId: string, secret: string): Promise<string> {
  const row = await client.userTwoFactor.findUniqueOrThrow({ where: { user_id: userId } });
  const step = Math.max((row.last_used_step ?? 0) + 1, Math.floor(Date.now() / 30_000));
  return totpCode(secret, step * 30);
}

const me = (browser: Browserless) => call<{ user?: { id: string } }>({ session: browser }, "GET", "/api/v1/me");

async function userWithTwoFactor() {
  const user = await createUser(client);
  return { user, ...(await setUp(await signedIn(user.id))) };
}

describe("sign-in with two-factor", () => {
  it("signs a user without two-factor in with the password alone", async () => {
    const user = await createUser(client);
    const browser = await signedIn(user.id);
    expect((await me(browser)).body.user?.id).toBe(user.id);
  });

  it("creates no session after the password step alone, then one with a code", async () => {
    const { user, secret } = await userWithTwoFactor();
    const browser = new Browserless(app.baseUrl);
    const next = await browser.postCredentials({ username: user.username, password: PASSWORD });
    expect(next.pathname).toBe("/console/sign-in");
    expect(next.searchParams.get("code")).toBe("second_factor");
    expect(browser.hasSession()).toBe(false);
    expect((await me(browser)).status).toBe(401);
    expect((await browser.fetch("/console/api-keys")).headers.get("location")).toContain("/console/sign-in");
    // The sign-in page now asks for the code.
    expect(await (await browser.fetch("/console/sign-in")).text()).toContain("Authentication code");
    expect(await browser.signInWithCode(await freshCode(user.id, secret))).toBe(true);
    expect((await me(browser)).body.user?.id).toBe(user.id);
  });

  it("refuses a code without the password step, and a code replayed", async () => {
    const { user, secret } = await userWithTwoFactor();
    const code = await freshCode(user.id, secret);
    const stranger = new Browserless(app.baseUrl);
    const next = await stranger.postCredentials({ code });
    expect(next.searchParams.get("code")).toBe("second_factor_expired");
    expect(stranger.hasSession()).toBe(false);

    const first = new Browserless(app.baseUrl);
    await first.postCredentials({ username: user.username, password: PASSWORD });
    expect(await first.signInWithCode(code)).toBe(true);
    const second = new Browserless(app.baseUrl);
    await second.postCredentials({ username: user.username, password: PASSWORD });
    expect(await second.signInWithCode(code)).toBe(false);
  });

  it("takes each recovery code once", async () => {
    const { user, recoveryCodes } = await userWithTwoFactor();
    const [code] = recoveryCodes as [string];
    const first = new Browserless(app.baseUrl);
    await first.postCredentials({ username: user.username, password: PASSWORD });
    expect(await first.signInWithCode(code.toUpperCase())).toBe(true);
    const second = new Browserless(app.baseUrl);
    await second.postCredentials({ username: user.username, password: PASSWORD });
    expect(await second.signInWithCode(code)).toBe(false);
    expect(
      (await call<{ recovery_codes_left: number }>({ session: first }, "GET", "/api/v1/me/two-factor")).body
        .recovery_codes_left,
    ).toBe(9);
  });

  it("throttles wrong codes like passwords: after a few, even the right code must wait", async () => {
    const { user, secret } = await userWithTwoFactor();
    const browser = new Browserless(app.baseUrl);
    await browser.postCredentials({ username: user.username, password: PASSWORD });
    for (let i = 0; i < 5; i++) {
      const next = await browser.postCredentials({ code: "000000" });
      expect(next.searchParams.get("code")).toBe("credentials");
    }
    const waiting = await browser.postCredentials({ code: await freshCode(user.id, secret) });
    expect(waiting.searchParams.get("code")).toBe("rate_limited");
    expect(browser.hasSession()).toBe(false);
  });

  it("counts wrong codes as failed authentications of the client address", async () => {
    const strict = await startApp(url, { SVC_AUTH_FAILURE_LIMIT: "3" });
    const { user } = await userWithTwoFactor();
    const browser = new Browserless(strict.baseUrl);
    await browser.postCredentials({ username: user.username, password: PASSWORD });
    for (let i = 0; i < 3; i++) await browser.postCredentials({ code: "000000" });
    // A bad API key from the same address is now one failure too many.
    const refused = await strict.fetch("/api/v1/me", { headers: { "x-api-key": "cdk_not-a-real-key" } });
    expect(refused.status).toBe(429);
    await strict.stop();
  });
});

describe("turning it off", () => {
  it("needs the password and a code", async () => {
    const user = await createUser(client);
    const session = await signedIn(user.id);
    const { secret } = await setUp(session);
    const wrong = await call({ session }, "POST", "/api/v1/me/two-factor/turn-off", {
      password: "not the password",
      code: await freshCode(user.id, secret),
    });
    expect(wrong).toMatchObject({ status: 400, body: { code: "validation_failed", errors: [{ path: "password" }] } });
    const off = await call({ session }, "POST", "/api/v1/me/two-factor/turn-off", {
      password: PASSWORD,
      code: await freshCode(user.id, secret),
    });
    expect(off).toMatchObject({ status: 200, body: { enabled: false } });
    expect(await new Browserless(app.baseUrl).signIn(user.username, PASSWORD)).toBe(true);
  });
});

describe("a reset by an administrator", () => {
  const lesserAdmin = async () => {
    const lesser = await createUserWith(client, ["svc:system:users:read", "svc:system:users:write"]);
    return { session: await signedIn(lesser.id) };
  };

  it("lets a sys_admin turn another user's two-factor off; the user then signs in with the password", async () => {
    const root = await createSysAdmin(client);
    const asRoot = { session: await signedIn(root.id) };
    const { user } = await userWithTwoFactor();
    expect((await call(asRoot, "GET", `/api/v1/users/${user.id}/two-factor`)).body).toMatchObject({
      enabled: true,
      recovery_codes_left: 10,
    });
    expect(await call(asRoot, "DELETE", `/api/v1/users/${user.id}/two-factor`)).toMatchObject({
      status: 200,
      body: { enabled: false },
    });
    expect(await client.userRecoveryCode.count({ where: { user_id: user.id } })).toBe(0);
    expect(await new Browserless(app.baseUrl).signIn(user.username, PASSWORD)).toBe(true);
  });

  it("refuses a lesser admin on a sys_admin (403, nothing changes), and allows one on a user holding less", async () => {
    const asLesser = await lesserAdmin();
    const victim = await createSysAdmin(client);
    await setUp(await signedIn(victim.id));
    expect(await call(asLesser, "DELETE", `/api/v1/users/${victim.id}/two-factor`)).toMatchObject({
      status: 403,
      body: { code: "forbidden" },
    });
    expect(await client.userTwoFactor.count({ where: { user_id: victim.id, enabled_at: { not: null } } })).toBe(1);
    const { user } = await userWithTwoFactor();
    expect((await call(asLesser, "DELETE", `/api/v1/users/${user.id}/two-factor`)).status).toBe(200);
  });

  it("refuses one's own through the reset (403): turning off asks for the password and a code", async () => {
    const root = await createSysAdmin(client);
    const session = await signedIn(root.id);
    await setUp(session);
    expect((await call({ session }, "DELETE", `/api/v1/users/${root.id}/two-factor`)).status).toBe(403);
  });
});

// Last: it switches the platform's requirement on for every sys_admin.
describe("auth.require_mfa_for_sys_admins", () => {
  it("holds a sys_admin without two-factor to setting it up, and only them, until it is set up", async () => {
    const root = await createSysAdmin(client);
    const asRoot = { session: await signedIn(root.id) };
    await setUp(asRoot.session);
    const admin = await createSysAdmin(client);
    const plain = await createUser(client);
    const asAdmin = { session: await signedIn(admin.id) };
    expect((await call(asAdmin, "GET", "/api/v1/users")).status).toBe(200);

    const setting = await call(asRoot, "PUT", "/api/v1/platform-settings/auth.require_mfa_for_sys_admins", {
      value: true,
      value_type: "boolean",
      category: "policy",
    });
    expect(setting.status).toBe(200);

    // An existing session is held at once; a new sign-in with the password lands on the setup page.
    expect(await call(asAdmin, "GET", "/api/v1/users")).toMatchObject({ status: 403, body: { code: "forbidden" } });
    const fresh = new Browserless(app.baseUrl);
    expect(await fresh.signIn(admin.username, PASSWORD)).toBe(true);
    expect((await fresh.fetch("/console/api-keys")).headers.get("location")).toContain("/console/two-factor-setup");
    expect((await fresh.fetch("/console/two-factor-setup")).status).toBe(200);
    expect(await call({ session: fresh }, "GET", "/api/v1/users")).toMatchObject({ status: 403 });
    expect(await call({ session: fresh }, "POST", "/api/v1/me/sign-out-everywhere").then((a) => a.status)).not.toBe(
      403,
    );
    // The sys_admin with two-factor and a user who is no sys_admin are not held.
    expect((await call(asRoot, "GET", "/api/v1/users")).status).toBe(200);
    expect((await me(await signedIn(plain.id))).status).toBe(200);

    const again = { session: await signedIn(admin.id) };
    expect((await call(again, "GET", "/api/v1/me/two-factor")).body).toMatchObject({ enabled: false, required: true });
    await setUp(again.session);
    expect((await call(again, "GET", "/api/v1/users")).status).toBe(200);
    expect((await again.session.fetch("/console/two-factor-setup")).headers.get("location")).toContain(
      "/console/account",
    );
  });
});
