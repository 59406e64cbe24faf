import { describe, expect, it } from "vitest";
import { Throttle, TooManySignInAttempts } from "./sign-in-throttle";

const waitOf = (fn: () => void): number | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(TooManySignInAttempts);
    return (error as TooManySignInAttempts).retryAfterSeconds;
  }
};

describe("sign-in throttle", () => {
  it("lets an account fail a few times, then makes it wait, doubling", () => {
    const throttle = new Throttle();
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) {
      expect(waitOf(() => throttle.check("Ada", "10.0.0.1", t0))).toBeUndefined();
      throttle.fail("Ada", "10.0.0.1", t0);
    }
    expect(waitOf(() => throttle.check("ada", "10.0.0.2", t0))).toBe(1);
    throttle.fail("ada", "10.0.0.2", t0 + 1000);
    expect(waitOf(() => throttle.check("ada", "10.0.0.3", t0 + 1000))).toBe(2);
    expect(waitOf(() => throttle.check("ada", "10.0.0.3", t0 + 3000))).toBeUndefined();
  });

  it("throttles a client address across accounts, whether or not they exist", () => {
    const throttle = new Throttle();
    const t0 = 5_000_000;
    for (let i = 0; i < 20; i++) throttle.fail(`user${i}`, "203.0.113.9", t0);
    expect(waitOf(() => throttle.check("someone-new", "203.0.113.9", t0))).toBe(1);
    expect(waitOf(() => throttle.check("someone-new", "203.0.113.10", t0))).toBeUndefined();
  });

  it("forgets an account's failures on success and after an hour", () => {
    const throttle = new Throttle();
    const t0 = 9_000_000;
    for (let i = 0; i < 6; i++) throttle.fail("bob", "a", t0);
    throttle.succeed("bob");
    expect(waitOf(() => throttle.check("bob", "b", t0))).toBeUndefined();
    for (let i = 0; i < 6; i++) throttle.fail("eve", "c", t0);
    expect(waitOf(() => throttle.check("eve", "d", t0 + 3_600_001))).toBeUndefined();
  });
});
