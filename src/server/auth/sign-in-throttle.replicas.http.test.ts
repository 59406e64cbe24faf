import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { Browserless, startApp, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createUser, PASSWORD, seedRoles } from "@/test/fixtures";
import { SIGN_IN_LIMITS } from "./sign-in-throttle";

// The sign-in throttle of two app processes sharing the Redis of this machine (REDIS_URL, else
// 127.0.0.1:6379), as two replicas behind a load balancer. The per-address limit of failed
// authentications is off here, so what refuses is the throttle of the account and address alone.

const { client, url } = await testDatabase();
await seedRoles(client);
const shared = {
  REDIS_URL: process.env.REDIS_URL ?? "redis://127.0.0.1:6379",
  REDIS_KEY_PREFIX: `svc-test-${randomBytes(6).toString("hex")}:`,
  SVC_AUTH_FAILURE_LIMIT: "0",
};
const replicas = await Promise.all([startApp(url, shared), startApp(url, shared)]);
const [a, b] = replicas as [RunningApp, RunningApp];

// Each replica connects to Redis on its own; until then it counts alone.
for (const app of replicas) {
  await vi.waitFor(async () => expect(await (await fetch(`${app.baseUrl}/api/metrics`)).text()).toMatch(/^svc_rate_limit_shared 1$/m), { timeout: 10_000, interval: 50 });
}

/** Where the credentials callback sends the browser: its query says how the attempt ended. */
async function signIn(app: RunningApp, username: string, password: string): Promise<string> {
  const session = new Browserless(app.baseUrl);
  const { csrfToken } = (await (await session.fetch("/api/auth/csrf")).json()) as { csrfToken: string };
  const response = await session.fetch("/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username, password, csrfToken }).toString(),
  });
  return response.headers.get("location") ?? "";
}

describe("two replicas sharing Redis", () => {
  it("throttle an account's failed sign-ins together: failures on either count on both", async () => {
    const user = await createUser(client);
    const free = SIGN_IN_LIMITS.accountAndAddress.points;
    // Spread over both replicas; each alone would have seen fewer failures than it lets through.
    for (let i = 0; i < free; i++) expect(await signIn(i % 2 ? a : b, user.username, "not-the-password")).toContain("error=CredentialsSignin");
    expect(await signIn(a, user.username, PASSWORD)).toContain("code=rate_limited");
    expect(await signIn(b, user.username, PASSWORD)).toContain("code=rate_limited");
    // Another account from the same address is not throttled: the count is the pair's.
    const other = await createUser(client);
    expect(await signIn(a, other.username, PASSWORD)).not.toContain("error=");
  });
});
