import { describe, expect, it } from "vitest";
import { Browserless, startReplicas, type RunningApp } from "@/test/app";
import { testDatabase } from "@/test/database";
import { createUser, PASSWORD, seedRoles } from "@/test/fixtures";
import { SIGN_IN_LIMITS } from "./sign-in-throttle";

// The sign-in throttle of two app processes sharing the Redis of this machine (REDIS_URL, else
// 127.0.0.1:6379), as two replicas behind a load balancer. The per-address limit of failed
// authentications is off here, so what refuses is the throttle of the account and address alone.

const { client, url } = await testDatabase();
await seedRoles(client);
const [a, b] = await startReplicas(url, { SVC_AUTH_FAILURE_LIMIT: "0" });

/** Where the credentials callback sends the browser: its query says how the attempt ended. */
const signIn = async (app: RunningApp, username: string, password: string) =>
  (await new Browserless(app.baseUrl).postCredentials({ username, password })).href;

describe("two replicas sharing Redis", () => {
  it("throttle an account's failed sign-ins together: failures on either count on both", async () => {
    const user = await createUser(client);
    const free = SIGN_IN_LIMITS.accountAndAddress.points;
    // Spread over both replicas; each alone would have seen fewer failures than it lets through.
    for (let i = 0; i < free; i++)
      expect(await signIn(i % 2 ? a : b, user.username, "not-the-password")).toContain("error=CredentialsSignin");
    expect(await signIn(a, user.username, PASSWORD)).toContain("code=rate_limited");
    expect(await signIn(b, user.username, PASSWORD)).toContain("code=rate_limited");
    // Another account from the same address is not throttled: the count is the pair's.
    const other = await createUser(client);
    expect(await signIn(a, other.username, PASSWORD)).not.toContain("error=");
  });
});
