import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createLimiterStore, type LimiterStore } from "@/server/limits/store";
import { metrics } from "@/server/metrics";
import { SIGN_IN_LIMITS, SignInThrottle, TooManySignInAttempts, type SignInStep } from "./sign-in-throttle";

// The sign-in throttle on a store in memory, and on the Redis of this machine shared by two throttles
// as by two app processes.

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const stores: LimiterStore[] = [];
afterAll(() => Promise.all(stores.map((store) => store.close())));

const memoryThrottle = () => new SignInThrottle(createLimiterStore());

/** A store on Redis under `prefix`, once it is connected (until then the insurance counts in memory). */
async function redisStore(prefix: string): Promise<LimiterStore> {
  const store = createLimiterStore({ redisUrl: REDIS_URL, prefix });
  stores.push(store);
  for (let i = 0; i < 200 && store.backend() !== "redis"; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(store.backend()).toBe("redis");
  return store;
}

async function waitOf(
  throttle: SignInThrottle,
  account: string,
  address: string,
  step?: SignInStep,
): Promise<number | undefined> {
  try {
    await throttle.check(account, address, step);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(TooManySignInAttempts);
    return (error as TooManySignInAttempts).retryAfterSeconds;
  }
}

async function failTimes(throttle: SignInThrottle, account: string, address: string, times: number) {
  for (let i = 0; i < times; i++) await throttle.fail(account, address);
}

const FREE = SIGN_IN_LIMITS.accountAndAddress.points;

describe("sign-in throttle", () => {
  it("lets an account fail a few times from an address, then makes that pair wait out its window", async () => {
    const throttle = memoryThrottle();
    for (let i = 0; i < FREE; i++) {
      expect(await waitOf(throttle, "Ada", "198.51.100.1")).toBeUndefined();
      await throttle.fail("Ada", "198.51.100.1");
    }
    const wait = await waitOf(throttle, " ada ", "198.51.100.1");
    expect(wait).toBeGreaterThan(SIGN_IN_LIMITS.accountAndAddress.windowSeconds - 5);
    expect(wait).toBeLessThanOrEqual(SIGN_IN_LIMITS.accountAndAddress.windowSeconds);
  });

  it("does not let a stranger elsewhere lock the account's owner out", async () => {
    const throttle = memoryThrottle();
    await failTimes(throttle, "admin", "203.0.113.66", FREE * 3);
    expect(await waitOf(throttle, "admin", "203.0.113.66")).toBeDefined();
    expect(await waitOf(throttle, "admin", "192.0.2.10")).toBeUndefined();
  });

  it("counts an IPv6 /64 as one address: hopping inside one's own network gains nothing", async () => {
    const throttle = memoryThrottle();
    for (let i = 0; i < FREE; i++) await throttle.fail("admin", `2001:db8:1:2::${i + 1}`);
    expect(await waitOf(throttle, "admin", "2001:db8:1:2:ffff::9")).toBeDefined();
    expect(await waitOf(throttle, "admin", "2001:db8:1:3::1")).toBeUndefined();
  });

  it("slows an address spraying many accounts, whether or not they exist", async () => {
    const throttle = memoryThrottle();
    for (let i = 0; i < SIGN_IN_LIMITS.address.points; i++) await throttle.fail(`user${i}`, "203.0.113.9");
    expect(await waitOf(throttle, "someone-new", "203.0.113.9")).toBeDefined();
    expect(await waitOf(throttle, "someone-new", "203.0.113.10")).toBeUndefined();
  });

  it("counts wrong second-factor codes per account from every address: more addresses buy no more guesses", async () => {
    const throttle = memoryThrottle();
    for (let i = 0; i < SIGN_IN_LIMITS.secondFactor.points; i++)
      await throttle.fail("second-factor:dave", `192.0.2.${100 + i}`, "code");
    expect(await waitOf(throttle, "second-factor:dave", "192.0.2.250")).toBeUndefined();
    expect(await waitOf(throttle, "second-factor:dave", "192.0.2.250", "code")).toBeDefined();
    expect(await waitOf(throttle, "second-factor:erin", "192.0.2.250", "code")).toBeUndefined();
  });

  it("counts each refusal in the metrics", async () => {
    const refusals = async () =>
      (await metrics().rateLimited.get()).values.find((v) => v.labels.limit === "sign_in")?.value ?? 0;
    const throttle = memoryThrottle();
    const before = await refusals();
    await failTimes(throttle, "metered", "198.51.100.30", FREE);
    expect(await refusals()).toBe(before);
    expect(await waitOf(throttle, "metered", "198.51.100.30")).toBeDefined();
    expect(await waitOf(throttle, "metered", "198.51.100.30")).toBeDefined();
    expect(await refusals()).toBe(before + 2);
  });

  it("forgets the pair's failures on success", async () => {
    const throttle = memoryThrottle();
    await failTimes(throttle, "bob", "198.51.100.7", FREE - 1);
    await throttle.succeed("Bob", "198.51.100.7");
    await failTimes(throttle, "bob", "198.51.100.7", FREE - 1);
    expect(await waitOf(throttle, "bob", "198.51.100.7")).toBeUndefined();
  });

  it("keeps counting a flood of distinct accounts without forgetting the ones it already throttles", async () => {
    const throttle = memoryThrottle();
    await failTimes(throttle, "target", "198.51.100.8", FREE);
    // Other addresses create counters of their own; none of that resets the target's.
    for (let i = 0; i < 2_000; i++) await throttle.fail(`flood${i}`, `10.${i >> 8}.${i & 255}.1`);
    expect(await waitOf(throttle, "target", "198.51.100.8")).toBeDefined();
  });

  it("shares its counts between processes through Redis", async () => {
    const prefix = `svc-test-${randomBytes(6).toString("hex")}:`;
    const [a, b] = [new SignInThrottle(await redisStore(prefix)), new SignInThrottle(await redisStore(prefix))];
    const half = Math.ceil(FREE / 2);
    await failTimes(a, "carol", "192.0.2.1", half);
    await failTimes(b, "carol", "192.0.2.1", FREE - half);
    expect(await waitOf(a, "carol", "192.0.2.1")).toBeDefined();
    expect(await waitOf(b, "carol", "192.0.2.1")).toBeDefined();
    await b.succeed("carol", "192.0.2.1");
    expect(await waitOf(a, "carol", "192.0.2.1")).toBeUndefined();
  });
});
