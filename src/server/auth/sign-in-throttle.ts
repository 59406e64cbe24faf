import "server-only";
import { createHash } from "node:crypto";
import { CredentialsSignin } from "next-auth";
import { failureCounterKey } from "@/server/limits/api-limits";
import { limiterStore, type Limiter, type LimiterStore, type LimitState } from "@/server/limits/store";
import { metrics } from "@/server/metrics";
import { processState } from "@/server/process-state";

// Slows password and code guessing at sign-in without letting a stranger lock anyone out: failures
// count per account and address, per address across accounts and, for a second factor, per account
// from every address (whoever is asked for the code has the password already). The counters live
// in the rate-limit store, and an unknown account counts like a known one, so answers reveal nothing.
// Limits and reasons: docs/access.md#failed-sign-ins.

export const SIGN_IN_LIMITS = {
  accountAndAddress: { name: "sign-in:account+address", points: 5, windowSeconds: 15 * 60 },
  address: { name: "sign-in:address", points: 30, windowSeconds: 60 * 60 },
  secondFactor: { name: "sign-in:second-factor", points: 10, windowSeconds: 15 * 60 },
} as const;

/** What failed: a password (or any first factor), or the code of a second factor. */
export type SignInStep = "password" | "code";

export class TooManySignInAttempts extends CredentialsSignin {
  code = "rate_limited";
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many sign-in attempts. Try again in ${retryAfterSeconds} seconds.`);
  }
}

// The account as typed (case-insensitive), hashed: a bounded key that does not spell the login.
const pairKey = (account: string, address: string) =>
  `${createHash("sha256").update(account.trim().toLowerCase()).digest("base64url")}@${failureCounterKey(address)}`;

/** Spent: the free failures are used up (peek reports "allowed" up to and including the last one). */
const spent = (state: LimitState) => state.remaining === 0;

export class SignInThrottle {
  private readonly pairs: Limiter;
  private readonly addresses: Limiter;
  private readonly secondFactors: Limiter;

  constructor(store: LimiterStore) {
    this.pairs = store.limiter(SIGN_IN_LIMITS.accountAndAddress);
    this.addresses = store.limiter(SIGN_IN_LIMITS.address);
    this.secondFactors = store.limiter(SIGN_IN_LIMITS.secondFactor);
  }

  /** The counters a failure of `step` counts against, each with its key. */
  private counters(account: string, address: string, step: SignInStep): [Limiter, string][] {
    const counters: [Limiter, string][] = [
      [this.pairs, pairKey(account, address)],
      [this.addresses, failureCounterKey(address)],
    ];
    if (step === "code") counters.push([this.secondFactors, pairKey(account, "")]);
    return counters;
  }

  /** Throws TooManySignInAttempts while any counter of this attempt is spent. */
  async check(account: string, address: string, step: SignInStep = "password"): Promise<void> {
    const states = await Promise.all(this.counters(account, address, step).map(([limiter, key]) => limiter.peek(key)));
    const waits = states.filter(spent).map((state) => state.resetMs);
    if (waits.length === 0) return;
    metrics().rateLimited.inc({ limit: "sign_in" });
    throw new TooManySignInAttempts(Math.ceil(Math.max(...waits) / 1000));
  }

  async fail(account: string, address: string, step: SignInStep = "password"): Promise<void> {
    await Promise.all(this.counters(account, address, step).map(([limiter, key]) => limiter.consume(key)));
  }

  /** Forgets the pair's failures (and the account's wrong codes, after a right one). */
  async succeed(account: string, address: string, step: SignInStep = "password"): Promise<void> {
    await this.pairs.reset(pairKey(account, address));
    if (step === "code") await this.secondFactors.reset(pairKey(account, ""));
  }
}

const processThrottle = () => processState("signInThrottle", () => new SignInThrottle(limiterStore()));

/** The process's throttle, on the process's limiter store (made when first used). */
export const signInThrottle: Pick<SignInThrottle, "check" | "fail" | "succeed"> = {
  check: (account, address, step) => processThrottle().check(account, address, step),
  fail: (account, address, step) => processThrottle().fail(account, address, step),
  succeed: (account, address, step) => processThrottle().succeed(account, address, step),
};
