import { randomBytes } from "node:crypto";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { startTcpProxy } from "@/test/tcp-proxy";
import { createLimiterStore, type LimiterStore } from "./store";

// Rate-limit counters in memory, and in the Redis of this machine (REDIS_URL, else 127.0.0.1:6379)
// shared by several stores as by several app processes, with Redis taken away by a TCP proxy.

const REDIS = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");
const stores: LimiterStore[] = [];
afterAll(() => Promise.all(stores.map((store) => store.close())));
afterEach(() => vi.useRealTimers());

/** A store on Redis (through `address` when given), under the given prefix, once it is connected. */
async function redisStore(prefix: string, address = `${REDIS.hostname}:${REDIS.port || 6379}`): Promise<LimiterStore> {
  const store = createLimiterStore({ redisUrl: `redis://${address}`, prefix });
  stores.push(store);
  await until(() => store.backend() === "redis");
  return store;
}

/** Once `condition` holds, looking every 50 ms for up to 10 s (what holds may not hold a moment later). */
const until = (condition: () => boolean | Promise<boolean>) =>
  vi.waitFor(async () => expect(await condition()).toBe(true), { timeout: 10_000, interval: 50 });

/** When `key`'s current window in Redis ends, on this process's clock (for a key absent from Redis, a window would start now). */
async function windowEnd(limiter: ReturnType<LimiterStore["limiter"]>, key: string): Promise<number> {
  return Date.now() + (await limiter.peek(key)).resetMs;
}

/**
 * Until `key`'s window in Redis has turned and the next window's points are counted there (its
 * window ends later by over half a window), calling `meanwhile` at every look.
 */
async function untilWindowTurns(limiter: ReturnType<LimiterStore["limiter"]>, key: string, meanwhile = async () => {}) {
  const before = await windowEnd(limiter, key);
  const halfWindow = (limiter.spec.windowSeconds * 1000) / 2;
  await until(async () => {
    await meanwhile();
    const state = await limiter.peek(key);
    return state.remaining < state.limit && Date.now() + state.resetMs > before + halfWindow;
  });
}

const uniquePrefix = () => `svc-test-${randomBytes(6).toString("hex")}:`;

/** A store on Redis through a proxy the test can make refuse connections or go silent. */
async function behindProxy(prefix = uniquePrefix()) {
  const proxy = await startTcpProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) });
  return { proxy, store: await redisStore(prefix, proxy.address) };
}
const spec = (points: number, windowSeconds = 60) => ({ name: "test", points, windowSeconds });

async function consumeTimes(limiter: ReturnType<LimiterStore["limiter"]>, key: string, times: number) {
  const states = [];
  for (let i = 0; i < times; i++) states.push(await limiter.consume(key));
  return states;
}

describe("limiter store", () => {
  it("in memory: allows the limit per window, then refuses until the window resets", async () => {
    const limiter = createLimiterStore().limiter(spec(3));
    const states = await consumeTimes(limiter, "k", 4);
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, false]);
    expect(states.map((s) => s.remaining)).toEqual([2, 1, 0, 0]);
    const refused = states[3];
    expect(refused?.resetMs).toBeGreaterThan(1_000);
    expect(refused?.resetMs).toBeLessThanOrEqual(60_000);
    // Another key has its own counter.
    expect((await limiter.consume("other")).allowed).toBe(true);
    expect((await limiter.peek("k")).allowed).toBe(false);
  });

  it("in memory: reads a window that has ended as a new one, though its counter is not yet let go", async () => {
    // The clock stands still but where the test sets it; the counter is let go by a timer, which
    // runs late on a busy process (here, not at all).
    vi.useFakeTimers({ toFake: ["Date"] });
    const windowStart = Date.now();
    const limiter = createLimiterStore().limiter(spec(3));
    expect((await consumeTimes(limiter, "k", 4)).at(-1)?.allowed).toBe(false);
    expect(await limiter.peek("k")).toMatchObject({ allowed: false, remaining: 0 });
    // At the window's end, and a second after it.
    for (const at of [60_000, 61_000]) {
      vi.setSystemTime(windowStart + at);
      expect(await limiter.peek("k")).toEqual({ allowed: true, limit: 3, remaining: 3, resetMs: 60_000 });
    }
    expect(await limiter.consume("k")).toMatchObject({ allowed: true, remaining: 2 });
  });

  it("on Redis: stores of one prefix share their counters, as replicas do", async () => {
    const prefix = uniquePrefix();
    const [a, b] = [(await redisStore(prefix)).limiter(spec(5)), (await redisStore(prefix)).limiter(spec(5))];
    await consumeTimes(a, "key-1", 3);
    const onB = await consumeTimes(b, "key-1", 3);
    expect(onB.map((s) => s.allowed)).toEqual([true, true, false]);
    expect((await a.consume("key-1")).allowed).toBe(false);
    // A store of another prefix (another deployment) counts apart.
    expect((await (await redisStore(uniquePrefix())).limiter(spec(5)).consume("key-1")).allowed).toBe(true);
  });

  it("counts in this process while Redis refuses connections, and shares again once it is back", async () => {
    const prefix = uniquePrefix();
    const { proxy, store } = await behindProxy(prefix);
    const limiter = store.limiter(spec(3));
    const peer = (await redisStore(prefix)).limiter(spec(3));
    await proxy.setMode("refuse");
    const states = await consumeTimes(limiter, "key-2", 4);
    expect(states.map((s) => s.allowed)).toEqual([true, true, true, false]);
    expect(store.backend()).toBe("insurance");
    // Meanwhile the peer's counter in Redis saw none of it.
    expect((await peer.peek("key-2")).remaining).toBe(3);

    await proxy.setMode("forward");
    await until(() => store.backend() === "redis");
    await limiter.consume("key-3");
    expect((await peer.peek("key-3")).remaining).toBe(2);
  });

  it("answers from memory when Redis stops replying on an open connection", async () => {
    const { proxy, store } = await behindProxy();
    const limiter = store.limiter(spec(2));
    await proxy.setMode("blackhole");
    const states = await consumeTimes(limiter, "key-4", 3);
    expect(states.map((s) => s.allowed)).toEqual([true, true, false]);
    // The silent connection is given up, so later requests do not each wait for it.
    await until(() => store.backend() === "insurance");
  });

  it("on Redis, takes a large limit's points a block at a time, ahead of the requests it answers", async () => {
    const prefix = uniquePrefix();
    const limiter = (await redisStore(prefix)).limiter(spec(1_000));
    const peer = (await redisStore(prefix)).limiter(spec(1_000));
    // A block is 1/100 of the limit: the first request reserves ten points in Redis.
    const first = await limiter.consume("key-5");
    expect(first).toMatchObject({ allowed: true, remaining: 999 });
    expect((await peer.peek("key-5")).remaining).toBe(990);
    // As requests spend it, Redis counts ahead of them by at most two blocks, never behind.
    for (let answered = 2; answered <= 60; answered++) {
      const state = await limiter.consume("key-5");
      expect(state.remaining).toBe(1_000 - answered);
      await until(async () => {
        const inRedis = 1_000 - (await peer.peek("key-5")).remaining;
        return inRedis >= answered && inRedis <= answered + 20;
      });
    }
  });

  it("on Redis, counts a large limit exactly in one replica, and never past it across two", async () => {
    const prefix = uniquePrefix();
    const alone = (await redisStore(prefix)).limiter(spec(1_000));
    const states = await consumeTimes(alone, "key-6", 1_001);
    expect(states.slice(0, 1_000).every((s, i) => s.allowed && s.remaining === 999 - i)).toBe(true);
    expect(states[1_000]).toMatchObject({ allowed: false, remaining: 0 });

    // Two replicas asking at once, 700 requests each, in bursts: the limit holds, and what either
    // holds unspent at the end costs at most a block each.
    const [a, b] = [(await redisStore(prefix)).limiter(spec(1_000)), (await redisStore(prefix)).limiter(spec(1_000))];
    let accepted = 0;
    for (let burst = 0; burst < 14; burst++) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).consume("key-7")));
      accepted += answers.filter((s) => s.allowed).length;
      expect(answers.every((s) => s.allowed || s.resetMs >= 1_000)).toBe(true);
    }
    expect(accepted).toBeLessThanOrEqual(1_000);
    expect(accepted).toBeGreaterThanOrEqual(980);
  });

  it("on Redis, does not carry a block's unspent points into the next window", async () => {
    const prefix = uniquePrefix();
    const limiter = (await redisStore(prefix)).limiter(spec(1_000, 1));
    expect((await consumeTimes(limiter, "key-8", 5)).at(-1)?.remaining).toBe(995);
    await untilWindowTurns(limiter, "key-8");
    expect((await limiter.consume("key-8")).remaining).toBe(999);
  });

  it("on Redis, turns a busy key's windows over exactly: no refusals, no points carried across", async () => {
    const limiter = (await redisStore(uniquePrefix())).limiter(spec(10_000, 1));
    // A request about every millisecond (blocks of 100, a dozen a window) for over three windows of
    // a second: within a window `remaining` counts down by one from 9,999; at each turn it starts
    // again from 9,999.
    const remaining: number[] = [];
    for (const startedAt = Date.now(); Date.now() - startedAt < 3_300;) {
      const state = await limiter.consume("key-9");
      expect(state.allowed).toBe(true);
      remaining.push(state.remaining);
      await new Promise((r) => setTimeout(r, 0));
    }
    const turns = remaining.filter((r, i) => i > 0 && r > (remaining[i - 1] as number));
    expect(turns.length).toBeGreaterThanOrEqual(3);
    expect(remaining[0]).toBe(9_999);
    expect(remaining.every((r, i) => i === 0 || r === 9_999 || r === (remaining[i - 1] as number) - 1)).toBe(true);
  });

  it("on Redis, takes a used key's next block as its window turns, so its next request does not wait; an unused key's none", async () => {
    const prefix = uniquePrefix();
    const limiter = (await redisStore(prefix)).limiter(spec(10_000, 1));
    const peer = (await redisStore(prefix)).limiter(spec(10_000, 1));
    // Blocks of 100, the next taken once half of one is spent: 60 requests hold two in Redis.
    await consumeTimes(limiter, "key-used", 60);
    await consumeTimes(limiter, "key-left", 60);
    expect((await peer.peek("key-used")).remaining).toBe(9_800);
    // Once the window has turned, with no request made, Redis holds one block of the next window.
    await until(async () => (await peer.peek("key-used")).remaining === 9_900);
    // The next request is answered from that block, at once (a promise already settled, no round trip).
    let answered: unknown;
    void limiter.consume("key-used").then((state) => (answered = state));
    await Promise.resolve();
    await Promise.resolve();
    expect(answered).toMatchObject({ allowed: true, remaining: 9_999 });
    // A key left unused through a window has nothing taken for the one after. Its turn would come
    // before that of a key first used once its window had begun: until that key's turn has taken
    // its block, it holds no points of a later window, and then none at all.
    await until(async () => (await peer.peek("key-left")).remaining === 9_900);
    const leftWindowEnds = await windowEnd(peer, "key-left");
    await limiter.consume("key-watch");
    const laterWindowsHeld: number[] = [];
    await untilWindowTurns(peer, "key-watch", async () => {
      const left = await peer.peek("key-left");
      if (left.remaining < 10_000 && Date.now() + left.resetMs > leftWindowEnds + 500)
        laterWindowsHeld.push(left.remaining);
    });
    expect(laterWindowsHeld, "points of a later window held").toEqual([]);
    expect((await peer.peek("key-left")).remaining).toBe(10_000);
  });

  it("on Redis, holds a large limit in this process while Redis refuses connections", async () => {
    const { proxy, store } = await behindProxy();
    const limiter = store.limiter(spec(1_000));
    await proxy.setMode("refuse");
    await until(() => store.backend() === "insurance");
    const states = await consumeTimes(limiter, "key-10", 1_001);
    expect(states.slice(0, 1_000).every((s, i) => s.allowed && s.remaining === 999 - i)).toBe(true);
    expect(states[1_000]?.allowed).toBe(false);
  });
});
