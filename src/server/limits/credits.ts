import "server-only";
import { LRUCache } from "lru-cache";
import { LOW_CREDITS_SHARE, MAX_CREDITS, nextRefillAt, type Refill } from "@/lib/credits";
import { onInvalidation } from "@/server/auth/invalidation-bus";
import { queryRows } from "@/server/db/client";
import { onShutdown } from "@/server/lifecycle";
import { log } from "@/server/log";
import { processState } from "@/server/process-state";

// A key's credits: the balance lives in the database, where every take is one atomic statement, so
// no key ever answers more requests than it had credits, whatever the replicas and the concurrency.
// A process takes a busy key's credits a block at a time and hands them out from memory (as rate
// limits are counted, decision 004); a balance under LEASE_FROM is taken request by request.
// Credits held and unused go back to the balance when the key changes, after LEASE_IDLE_MS unused
// and at shutdown. A refill is applied by the take that first meets it: nothing waits on a job.
// See docs/decisions/059-key-credits.md.

/** What a key's credits are spent from: the key whose balance it is (a rolled key spends its successor's), and its refill. */
export interface CreditsSource {
  keyId: string;
  refill: Refill | null;
}

/** A consumption's outcome: `remaining` as this process sees it (the balance, plus what it holds). */
export interface CreditsState {
  allowed: boolean;
  remaining: number;
  /** Seconds until the next refill; null without one. */
  retryAfterSeconds: number | null;
  /** The balance fell below its low mark with this take (api_key.credits_low is due). */
  low?: boolean;
  /** The balance (its version and refill moment) the credits came from, where they go back if unused. */
  balance?: { version: number; refilledAt: Date | null };
}

// A block is 1/LEASE_SHARE of the balance the process last saw, at most LEASE_MAX: what another
// replica holds when this one finds the balance empty is at most 1% of what there was.
const LEASE_SHARE = 100;
const LEASE_MAX = 100;
const LEASE_FROM = 2 * LEASE_SHARE;
const LEASE_IDLE_MS = 30_000;
const SWEEP_MS = 10_000;
const LEASED_KEYS_MAX = 50_000;

interface Lease {
  /** Credits taken from the balance and not yet handed out. */
  left: number;
  /** The balance as the last take left it (Infinity before the first). */
  balance: number;
  /** The balance's credits_version and refill moment: credits held go back only to that balance. */
  version: number;
  refilledAt: Date | null;
  /** When the credits held stop counting: the next refill replaces the balance they came from. */
  endsAt: number;
  usedAt: number;
  /** A busy key's take under way, and the requests waiting for a credit of it. */
  next?: Promise<void>;
  waiting: { resolve: (state: CreditsState) => void; reject: (error: unknown) => void }[];
}

interface TakeRow {
  taken: number;
  balance: number;
  version: number;
  refilled_at: Date | null;
  low: boolean;
}

// One statement: the row is locked, a refill that fell due by the database's clock is applied, then
// up to `want` credits (and at least `least`, else none) are taken. It runs as bookkeeping
// (updated_at stays). A rolled key's take is its successor's. No row: the key has no credits, or
// spends another's since the statement began (then `spender` says so, and the take is retried).
const TAKE = `WITH bookkeeping AS (SELECT set_config('svc.bookkeeping', 'on', true)),
  cur AS (
    SELECT id, credits_remaining, credits_refill_amount, period_start,
      (credits_refill_amount IS NOT NULL AND (credits_refilled_at IS NULL OR credits_refilled_at < period_start)) AS due
    FROM api_keys,
      LATERAL (SELECT svc_credits_period_start(credits_refill_interval, credits_refill_day, now()) AS period_start) p
    WHERE id = (SELECT COALESCE(credits_key_id, id) FROM api_keys WHERE id = $1::uuid) AND credits_remaining IS NOT NULL
    FOR UPDATE OF api_keys),
  bal AS (SELECT id, due, period_start, CASE WHEN due THEN credits_refill_amount ELSE credits_remaining END AS balance FROM cur),
  amt AS (SELECT id, due, period_start, balance,
      CASE WHEN balance >= $2::bigint THEN $2::bigint WHEN balance >= $3::bigint THEN balance ELSE 0 END AS taken FROM bal)
  UPDATE api_keys k SET credits_remaining = amt.balance - amt.taken,
    credits_refilled_at = CASE WHEN amt.due THEN amt.period_start ELSE k.credits_refilled_at END,
    credits_low_sent = k.credits_low_sent AND NOT amt.due,
    credits_exhausted_sent = k.credits_exhausted_sent AND NOT amt.due
  FROM amt, bookkeeping WHERE k.id = amt.id
  RETURNING amt.taken::float8 AS taken, k.credits_remaining::float8 AS balance, k.credits_version AS version,
    k.credits_refilled_at AS refilled_at,
    NOT k.credits_low_sent AND k.credits_remaining
      < COALESCE(k.credits_low_threshold, floor(k.credits_refill_amount * ${LOW_CREDITS_SHARE})) AS low`;

// Whether a key spends credits at all: a take that found no row asks, and takes again if so (the key
// was rolled, or its credits moved, while the take waited for the row).
const LIMITED = `SELECT (credits_key_id IS NOT NULL OR credits_remaining IS NOT NULL) AS limited FROM api_keys WHERE id = $1::uuid`;

// Credits held go back to the balance they came from, unless it was set meanwhile or refilled.
const GIVE_BACK = `WITH bookkeeping AS (SELECT set_config('svc.bookkeeping', 'on', true))
  UPDATE api_keys SET credits_remaining = LEAST(credits_remaining + $2::bigint, ${MAX_CREDITS}) FROM bookkeeping
  WHERE id = (SELECT COALESCE(credits_key_id, id) FROM api_keys WHERE id = $1::uuid) AND credits_remaining IS NOT NULL
    AND credits_version = $3 AND credits_refilled_at IS NOT DISTINCT FROM $4::timestamptz`;

const blockSize = (balance: number) =>
  balance < LEASE_FROM ? 1 : Math.min(LEASE_MAX, Math.floor(balance / LEASE_SHARE));

export type CreditLeases = LRUCache<string, Lease>;

// Once per process (every server chunk hands out the same credits); a lease pushed out gives its credits back.
const leases = processState(
  "creditLeases",
  (): CreditLeases => new LRUCache({ max: LEASED_KEYS_MAX, dispose: (lease, keyId) => giveBack(keyId, lease) }),
);

function giveBack(keyId: string, lease: Lease): void {
  const left = lease.left;
  lease.left = 0;
  if (left <= 0 || lease.endsAt <= Date.now()) return;
  void queryRows(GIVE_BACK, [keyId, left, lease.version, lease.refilledAt]).catch((error: unknown) =>
    log.warn("could not give back a key's unused credits", { key_id: keyId, error: (error as Error).message }),
  );
}

const retryAfter = (refill: Refill | null, now: number) =>
  refill ? Math.max(1, Math.ceil((nextRefillAt(refill, now) - now) / 1000)) : null;

/**
 * Takes credits of `source` from the database: `want` of them, at least `least` (else none), of
 * which `keep` go to the caller and the rest into `lease`.
 */
async function take(source: CreditsSource, lease: Lease, want: number, least: number, keep: number, now: number) {
  const row = await takeRow(source.keyId, want, least);
  if (!row) return undefined;
  // Credits held from a balance since set or refilled are not this one's.
  if (row.version !== lease.version || !sameMoment(row.refilled_at, lease.refilledAt)) lease.left = 0;
  lease.version = row.version;
  lease.refilledAt = row.refilled_at;
  lease.endsAt = source.refill ? nextRefillAt(source.refill, now) : Infinity;
  lease.balance = row.balance;
  lease.left += row.taken - Math.min(row.taken, keep);
  return row;
}

const TAKE_TRIES = 3;

/** The take's row; undefined when the key has no credits (made unlimited since this process cached it). */
async function takeRow(keyId: string, want: number, least: number): Promise<TakeRow | undefined> {
  for (let tries = 1; ; tries++) {
    const [row] = await queryRows<TakeRow>(TAKE, [keyId, want, least]);
    if (row) return row;
    const [key] = await queryRows<{ limited: boolean }>(LIMITED, [keyId]);
    if (!key?.limited) return undefined;
    // Still limited after a few tries (its balance moving under every take): refused, never free.
    if (tries === TAKE_TRIES) return { taken: 0, balance: 0, version: -1, refilled_at: null, low: false };
  }
}

function leaseOf(keyId: string, now: number): Lease {
  let lease = leases.get(keyId);
  if (!lease) {
    // The balance is unknown until the first take, which takes for its own request only.
    lease = { left: 0, balance: 0, version: -1, refilledAt: null, endsAt: Infinity, usedAt: now, waiting: [] };
    leases.set(keyId, lease);
  }
  // A refill is due: the credits held belong to the balance it replaces.
  if (lease.endsAt <= now) lease.left = 0;
  lease.usedAt = now;
  return lease;
}

const UNLIMITED: CreditsState = { allowed: true, remaining: Infinity, retryAfterSeconds: null };

/** Where `lease` stands once a request's credits are settled. */
function stateOf(source: CreditsSource, lease: Lease, allowed: boolean, now: number, low = false): CreditsState {
  // Half a block left: the next block is taken in the background.
  const block = blockSize(lease.balance);
  if (allowed && block > 1 && !lease.next && lease.left * 2 < block) nextBlock(source, lease, now);
  return {
    allowed,
    remaining: lease.balance + lease.left,
    retryAfterSeconds: retryAfter(source.refill, now),
    low,
    balance: { version: lease.version, refilledAt: lease.refilledAt },
  };
}

/**
 * Serves a busy key's waiting requests from its lease, and when some are left waiting, takes the
 * next block with a credit for each of them. One take at a time: a burst never leaves a process
 * holding more than a block it has no request for. Waiting requests are refused only once a take
 * finds the balance empty.
 */
function serveWaiting(source: CreditsSource, lease: Lease, now: number, low = false): void {
  while (lease.waiting.length > 0 && lease.left > 0) {
    lease.left -= 1;
    lease.waiting.shift()!.resolve(stateOf(source, lease, true, now, low));
  }
  if (lease.waiting.length > 0) nextBlock(source, lease, now);
}

function nextBlock(source: CreditsSource, lease: Lease, now: number): void {
  if (lease.next) return;
  const next = take(source, lease, blockSize(lease.balance) + lease.waiting.length, 1, 0, now).then(
    (row) => {
      lease.next = undefined;
      const waiting = lease.waiting;
      if (!row || row.taken === 0) {
        lease.waiting = [];
        for (const request of waiting) request.resolve(row ? stateOf(source, lease, false, now) : UNLIMITED);
      } else serveWaiting(source, lease, now, row.low);
      // Dropped while the take was under way (the key changed): what is left goes back.
      if (leases.peek(source.keyId) !== lease) giveBack(source.keyId, lease);
    },
    (error: unknown) => {
      lease.next = undefined;
      const waiting = lease.waiting;
      lease.waiting = [];
      for (const request of waiting) request.reject(error);
    },
  );
  lease.next = next;
}

/** One credit of a busy key, from its lease. */
function creditOfBlock(source: CreditsSource, lease: Lease, now: number): Promise<CreditsState> {
  return new Promise((resolve, reject) => {
    lease.waiting.push({ resolve, reject });
    serveWaiting(source, lease, now);
  });
}

/**
 * Consumes `cost` credits of the key; cost 0 only looks. Refused when the balance cannot cover the
 * cost: nothing is consumed then.
 */
export async function consumeCredits(source: CreditsSource, cost = 1, now = Date.now()): Promise<CreditsState> {
  sweepIdleLeases(now);
  const lease = leaseOf(source.keyId, now);
  if (cost === 0) {
    if (lease.left > 0) return stateOf(source, lease, true, now);
    const row = await take(source, lease, 0, 0, 0, now);
    return row ? stateOf(source, lease, lease.balance > 0, now) : UNLIMITED;
  }
  if (lease.left >= cost) {
    lease.left -= cost;
    return stateOf(source, lease, true, now);
  }
  if (cost === 1 && blockSize(lease.balance) > 1) return creditOfBlock(source, lease, now);
  // What the lease holds goes to this request, the rest comes from the balance.
  const held = lease.left;
  const { version, refilledAt } = lease;
  lease.left = 0;
  const need = cost - held;
  const row = await take(source, lease, need, need, need, now);
  if (!row) return UNLIMITED;
  if (row.taken >= need) return stateOf(source, lease, true, now, row.low);
  // Refused: what the lease held stays held, unless the take found a new balance.
  if (lease.version === version && sameMoment(lease.refilledAt, refilledAt)) lease.left += held;
  return stateOf(source, lease, false, now);
}

/**
 * Gives back `cost` credits a request was granted (`state`) and did not use, the request refused
 * after all: to the lease of a busy key when it still holds the balance they came from, else to
 * that balance (unless it was set or refilled since). Resolves once they are back, so that the
 * refusal is answered only then: a balance read after it counts them.
 */
export async function returnCredits(
  source: CreditsSource,
  cost: number,
  state: CreditsState,
  now = Date.now(),
): Promise<void> {
  const from = state.balance;
  if (!state.allowed || !from || cost <= 0) return;
  const lease = leases.peek(source.keyId);
  const leased = lease && blockSize(lease.balance) > 1;
  if (leased && lease.version === from.version && sameMoment(lease.refilledAt, from.refilledAt) && lease.endsAt > now) {
    lease.left += cost;
    return;
  }
  await queryRows(GIVE_BACK, [source.keyId, cost, from.version, from.refilledAt]).catch((error: unknown) =>
    log.warn("could not give back a refused request's credits", {
      key_id: source.keyId,
      error: (error as Error).message,
    }),
  );
}

const sameMoment = (a: Date | null, b: Date | null) => a?.getTime() === b?.getTime();

let lastSweep = 0;

/** Gives back what keys unused for LEASE_IDLE_MS hold: a process that stops seeing a key keeps none of its credits. */
function sweepIdleLeases(now = Date.now()): void {
  if (now - lastSweep < SWEEP_MS) return;
  lastSweep = now;
  for (const [keyId, lease] of leases.entries()) {
    if (now - lease.usedAt >= LEASE_IDLE_MS && !lease.next) leases.delete(keyId);
  }
}

/** Gives back every credit this process holds, at shutdown. */
async function giveBackAllCredits(): Promise<void> {
  const now = Date.now();
  const held = [...leases.entries()].filter(([, lease]) => lease.left > 0 && lease.endsAt > now);
  const returns = held.map(([keyId, lease]) => {
    const left = lease.left;
    lease.left = 0;
    return queryRows(GIVE_BACK, [keyId, left, lease.version, lease.refilledAt]).catch(() => undefined);
  });
  leases.clear();
  await Promise.all(returns);
}

onShutdown("flush", giveBackAllCredits);
// A key changed (its credits set, its successor rolled, its owner gone): what is held goes back, and
// the next request takes from the balance as it is now.
onInvalidation((event) => {
  if ("all" in event) leases.clear();
  else if ("keyId" in event) leases.delete(event.keyId);
});
