import "server-only";
import { CredentialsSignin } from "next-auth";

// Failed sign-ins are throttled per account and per client address. After a few failures each
// further attempt must wait, doubling up to a cap; a success clears the account's record. The
// message never says whether the account exists.

const FREE_FAILURES = { account: 5, client: 20 } as const;
const BASE_WAIT_MS = 1_000;
const MAX_WAIT_MS = 15 * 60_000;
const FORGET_AFTER_MS = 60 * 60_000;
const MAX_TRACKED = 50_000;

interface Record {
  failures: number;
  last: number;
}

export class TooManySignInAttempts extends CredentialsSignin {
  code = "rate_limited";
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many sign-in attempts. Try again in ${retryAfterSeconds} seconds.`);
  }
}

export class Throttle {
  private readonly accounts = new Map<string, Record>();
  private readonly clients = new Map<string, Record>();

  private waitMs(record: Record | undefined, free: number, now: number): number {
    if (!record || now - record.last > FORGET_AFTER_MS || record.failures < free) return 0;
    const wait = Math.min(MAX_WAIT_MS, BASE_WAIT_MS * 2 ** (record.failures - free));
    return Math.max(0, record.last + wait - now);
  }

  /** Throws TooManySignInAttempts while either the account or the client must wait. */
  check(account: string, client: string, now = Date.now()): void {
    const wait = Math.max(
      this.waitMs(this.accounts.get(account.toLowerCase()), FREE_FAILURES.account, now),
      this.waitMs(this.clients.get(client), FREE_FAILURES.client, now),
    );
    if (wait > 0) throw new TooManySignInAttempts(Math.ceil(wait / 1000));
  }

  fail(account: string, client: string, now = Date.now()): void {
    for (const [map, key] of [[this.accounts, account.toLowerCase()], [this.clients, client]] as const) {
      if (map.size >= MAX_TRACKED) map.clear();
      const record = map.get(key);
      map.set(key, { failures: record && now - record.last <= FORGET_AFTER_MS ? record.failures + 1 : 1, last: now });
    }
  }

  succeed(account: string): void {
    this.accounts.delete(account.toLowerCase());
  }
}

export const signInThrottle = new Throttle();
