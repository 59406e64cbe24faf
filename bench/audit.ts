// `npm run bench:audit`: what the audit trail costs a change, by timing two operations through
// invoke() (checks, change and audit event in one transaction) against their bare handlers, call by
// call in turns so both see the same moment of a shared machine. The ratio is an upper bound of the
// trail's cost. Target and settings: docs/benchmarks.md#audit-trail.

import { KEY_POLICY } from "@/lib/key-policies";
import { OPERATION_GROUPS } from "@/server/operations";
import { readContext } from "@/server/db/context";
import { invoke } from "@/server/operations/invoke";
import type { AnyOperation } from "@/server/operations/operation";
import {
  alternating,
  f,
  freshDatabase,
  intSetting,
  lpad,
  median,
  pad,
  percentile,
  runBenchmark,
  say,
  signedInClient,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_audit";
const CALLS = intSetting("BENCH_CALLS", 200, 10, 100_000);
const ROUNDS = intSetting("BENCH_ROUNDS", 5, 1, 100);
const TARGET = 1.6;

async function main() {
  const startedAt = new Date();
  say(`Audit trail cost: ${CALLS * ROUNDS} pairs of calls per case, in-process through invoke().`);
  const { client, actor } = await signedInClient(await freshDatabase(DB_NAME));
  const org = await client.organization.create({ data: { name: "bench" } });
  // The bench creates more keys for its one sys_admin than the default policy lets a user hold.
  await client.platformSetting.create({
    data: { key: KEY_POLICY.maxPerUser, value: 1_000_000, value_type: "integer", category: "api_keys" },
  });

  let n = 0;
  const cases: {
    name: string;
    operation: AnyOperation;
    params: () => Record<string, unknown>;
    body: () => Record<string, unknown>;
  }[] = [
    {
      name: "createApiKey",
      operation: OPERATION_GROUPS.apiKeys.create as AnyOperation,
      params: () => ({}),
      body: () => ({ name: `bench ${++n}`, scopes: ["svc:org:read"], expires_at: null }),
    },
    {
      name: "updateOrganization",
      operation: OPERATION_GROUPS.organizations.update as AnyOperation,
      params: () => ({ org_id: org.id }),
      body: () => ({ description: `bench ${++n}` }),
    },
  ];

  type Case = (typeof cases)[number];
  const audited = (c: Case) => invoke(c.operation, actor, { params: c.params(), query: {}, body: c.body });
  const bare = async (c: Case) =>
    c.operation.handler({
      ...readContext(actor),
      params: c.operation.params?.parse(c.params()) ?? {},
      query: {},
      body: c.operation.body?.parse(c.body()),
    } as never);

  const results: Record<string, { with_ms: number; without_ms: number; ratio: number; p90_ratio: number }> = {};
  for (const c of cases) {
    // Warm-up: statements prepared, caches filled, either way.
    for (let i = 0; i < 50; i++) await (i % 2 ? audited(c) : bare(c));
    const [withAudit, without] = await alternating(
      CALLS * ROUNDS,
      () => audited(c),
      () => bare(c),
    );
    const p90 = (values: number[]) =>
      percentile(
        [...values].sort((x, y) => x - y),
        90,
      );
    results[c.name] = {
      with_ms: median(withAudit),
      without_ms: median(without),
      ratio: median(withAudit) / median(without),
      p90_ratio: p90(withAudit) / p90(without),
    };
  }

  say();
  say(
    `${pad("case (median per call)", 24)}${lpad("audited ms", 12)}${lpad("unaudited ms", 14)}${lpad("ratio", 8)}${lpad("p90 ratio", 11)}  target ≤ ${TARGET}×`,
  );
  for (const [name, r] of Object.entries(results)) {
    say(
      `${pad(name, 24)}${lpad(f(r.with_ms, 3), 12)}${lpad(f(r.without_ms, 3), 14)}${lpad(f(r.ratio), 8)}${lpad(f(r.p90_ratio), 11)}  ${r.ratio <= TARGET ? "met" : "MISSED"}`,
    );
  }
  say();
  say(`Results: ${await writeResults("audit", startedAt, { calls: CALLS, rounds: ROUNDS, target: TARGET, results })}`);
  await client.$disconnect();
}

await runBenchmark(main, [DB_NAME]);
