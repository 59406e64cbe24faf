// The budgets phase of `npm run bench`: a key with credits against the same key without (each
// request spends one, from credits the process holds in blocks), and verifying those keys through
// POST /api/v1/api-keys/verify against their own GET /api/v1/me. Targets: ≥ 0.9 of the throughput
// each. See docs/benchmarks.md#api-keys.

import pg from "pg";
import { generateKey, hashKey } from "@/server/auth/api-key-format";
import { processTree } from "./cpu-time";
import { f, lpad, pad, say, startApp, stopApp } from "./lib";
import { pairedRatio, ROUNDS, runLevel, scenarioFigures, WARMUP_ROUNDS, type Scenario } from "./load";

export const TARGET_CREDITS_RATIO = 0.9;
export const TARGET_VERIFY_RATIO = 0.9;
// A balance no bench run spends: only the spending is measured, never a refusal.
const BENCH_CREDITS = 1_000_000_000_000;

/**
 * A copy of each of `keys` (the same owner, scopes, limit and restrictions) with credits, and a
 * sys_admin's key that may verify: what the phase sends.
 */
async function budgetKeys(url: string, keys: string[]): Promise<{ credited: string[]; verifier: string }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const credited = keys.map(() => generateKey());
    await client.query(
      `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, allowed_org_ids, allowed_cidrs,
           credits_remaining, updated_by)
       SELECT k.user_id, 'bench credited key', t.h, t.p, k.scopes, k.rate_limit, k.allowed_org_ids, k.allowed_cidrs,
           $4, 'system:bench'
       FROM unnest($1::text[], $2::text[], $3::text[]) AS t(source, h, p) JOIN api_keys k ON k.key_hash = t.source`,
      [keys.map((raw) => hashKey(raw)), credited.map((k) => k.hash), credited.map((k) => k.prefix), BENCH_CREDITS],
    );
    const verifier = generateKey();
    await client.query(
      `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, updated_by)
       SELECT u.id, 'bench verifier', $1, $2, '["svc:system:api_keys:verify"]'::jsonb, k.rate_limit, 'system:bench'
       FROM users u, api_keys k WHERE u.username = 'admin' AND k.key_hash = $3`,
      [verifier.hash, verifier.prefix, hashKey(keys[0] as string)],
    );
    return { credited: credited.map((k) => k.raw), verifier: verifier.raw };
  } finally {
    await client.end();
  }
}

export async function measureBudgets(
  url: string,
  keys: string[],
  connections: number[],
  appEnv: Record<string, string>,
) {
  const { credited, verifier } = await budgetKeys(url, keys);
  const started = await startApp(url, { ...appEnv, REDIS_URL: "" });
  say(`[budgets] App started, pid ${started.pid}; ${keys.length} keys with credits, and their verification…`);
  // The keys under test are restricted to networks: the verification names the bench's address.
  const verify = { key: verifier, body: { client_ip: "127.0.0.1" } };
  const sanity = await fetch(`${started.baseUrl}/api/v1/api-keys/verify`, {
    method: "POST",
    headers: { "x-api-key": verifier, "content-type": "application/json" },
    body: JSON.stringify({ key: keys[0], ...verify.body }),
  });
  const answer = (await sanity.json()) as { code?: string };
  const credit = await fetch(`${started.baseUrl}/api/v1/me`, { headers: { "x-api-key": credited[0] as string } });
  await credit.arrayBuffer();
  if (answer.code !== "VALID" || credit.headers.get("credits-remaining") === null)
    throw new Error(`unexpected answers before the run: ${JSON.stringify(answer)}, credits ${credit.status}`);

  const scenarios: Scenario[] = [
    { id: "b", label: `GET /api/v1/me, ${keys.length} keys`, path: "/api/v1/me", keys, expectStatus: 200 },
    {
      id: "k",
      label: `GET /api/v1/me, ${credited.length} keys with credits`,
      path: "/api/v1/me",
      keys: credited,
      expectStatus: 200,
    },
    {
      id: "v",
      label: `POST /api/v1/api-keys/verify, ${keys.length} keys`,
      path: "/api/v1/api-keys/verify",
      keys,
      verify,
      expectStatus: 200,
    },
  ];
  const appPids = processTree(started.pid);
  const levels = [];
  for (const n of connections) {
    if (WARMUP_ROUNDS > 0) await runLevel(started.baseUrl, appPids, scenarios, n, WARMUP_ROUNDS);
    say(`[budgets] Measuring at ${n} connections: ${ROUNDS} rounds, alternating ${scenarios.map((s) => s.id)}…`);
    const load = await runLevel(started.baseUrl, appPids, scenarios, n, ROUNDS);
    const [plain, withCredits, verified] = scenarios.map((s) => scenarioFigures(load, s));
    const credits = pairedRatio(plain?.slotRps ?? [], withCredits?.slotRps ?? []);
    const verification = pairedRatio(plain?.slotRps ?? [], verified?.slotRps ?? []);
    levels.push({
      connections: n,
      plain,
      withCredits,
      verified,
      credits: { ...credits, pass: credits.ratio >= TARGET_CREDITS_RATIO },
      verification: { ...verification, pass: verification.ratio >= TARGET_VERIFY_RATIO },
      valid:
        scenarios.every((s) => (scenarioFigures(load, s).expectedShare ?? 0) >= 0.999) &&
        load.errors + load.timeouts === 0,
    });
  }
  await stopApp();
  return { keys: keys.length, levels };
}

export function reportBudgets(budgets: Awaited<ReturnType<typeof measureBudgets>>) {
  say();
  say(`== budgets: keys with credits, and verifying keys for a service (limits in process) ==`);
  say(`${pad("conns", 6)}${pad("scenario", 48)}${lpad("req/s", 9)}${lpad("p50 ms", 9)}${lpad("p99 ms", 9)}`);
  for (const level of budgets.levels)
    for (const x of [level.plain, level.withCredits, level.verified])
      if (x)
        say(
          `${pad(String(level.connections), 6)}${pad(x.label, 48)}${lpad(x.rps.toFixed(0), 9)}${lpad(f(x.p50), 9)}${lpad(f(x.p99), 9)}`,
        );
  for (const level of budgets.levels) {
    const ratio = (name: string, r: typeof level.credits, target: number) =>
      `${name} = ${r.ratio.toFixed(3)} (target ≥ ${target}) ${r.pass ? "PASS" : "FAIL"} [${f(r.p10)} to ${f(r.p90)}; ${r.ofTotals.toFixed(3)}]`;
    say(
      `  ${lpad(String(level.connections), 3)} conns: throughput ${ratio("credits/plain", level.credits, TARGET_CREDITS_RATIO)};  ${ratio("verify/me", level.verification, TARGET_VERIFY_RATIO)}${level.valid ? "" : "  (INVALID: unexpected statuses or errors)"}`,
    );
  }
}
