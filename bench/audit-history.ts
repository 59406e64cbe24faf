// `npm run bench:audit-history`: whether the audit trail's list stays fast as the trail grows, by
// timing every filter on a trail of 1,000 events and one of a million, call by call in turns.
// Targets and settings: docs/benchmarks.md#audit-history.

import pg from "pg";
// Aliased: the name of a React hook, which lint rules would hold it to.
import { useBaseClient as makeProcessWide } from "@/server/db/client";
import { OPERATION_GROUPS } from "@/server/operations";
import { invoke } from "@/server/operations/invoke";
import type { AnyOperation } from "@/server/operations/operation";
import {
  f,
  freshDatabase,
  intSetting,
  lpad,
  median,
  pad,
  percentile,
  reportHeader,
  runBenchmark,
  say,
  signedInClient,
  writeResults,
} from "./lib";

const DB_NAME = "svc_bench_audit_history";
const EVENTS = intSetting("BENCH_EVENTS", 1_000_000, 10_000, 10_000_000);
const RUNS = intSetting("BENCH_RUNS", 50, 5, 10_000);
const SMALL = 1_000;
const DAYS = 289;
const ACTORS = 1_000;
const ORGS = 100;
const ACTIONS = 40;
const TARGETS = 50_000;
const TARGET_GROWTH = 3;
const TARGET_P95_MS = 200;

/**
 * Events number `from` to `to` - 1 of a trail of `total`, event i at day i / total of the 289
 * (so a trail of any size spans the same days), with a UUIDv7 id of its own time.
 */
async function insertEvents(client: pg.Client, from: number, to: number, total: number) {
  await client.query(
    `WITH actors AS (SELECT array_agg(id ORDER BY username) AS ids FROM users WHERE username LIKE 'bench_actor_%'),
          orgs AS (SELECT array_agg(id ORDER BY name) AS ids FROM organizations WHERE name LIKE 'bench_org_%'),
          events AS (
            SELECT i, now() - make_interval(secs => ${DAYS} * 86400 * (1 - i::float8 / $3)) AS at
            FROM generate_series($1::bigint, $2::bigint - 1) i)
     INSERT INTO audit_events (id, occurred_at, actor_user_id, actor_auth, action, target_type, target_id, org_id,
                               request_id, ip, user_agent, changes, outcome)
     SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || substr(md5(i::text), 1, 3)
               || to_hex(8 + i % 4) || substr(md5(i::text), 4, 15))::uuid,
            at, actors.ids[1 + (i * 7919) % ${ACTORS}], 'session', 'bench.action.' || (i % ${ACTIONS}),
            'organization', 'target-' || (i * 31) % ${TARGETS}, orgs.ids[1 + i % ${ORGS}],
            'req-' || i, '127.0.0.1', 'bench', '{"description": {"old": "a", "new": "b"}}'::jsonb,
            CASE WHEN i % 50 = 0 THEN 'denied' ELSE 'success' END
     FROM events, actors, orgs`,
    [from, to, total],
  );
  await client.query("VACUUM ANALYZE audit_events");
}

interface Filter {
  name: string;
  org?: boolean;
  query: (context: { actorId: string; deepCursor: string; now: number }) => Record<string, string>;
}

const DAY_MS = 86_400_000;
const FILTERS: Filter[] = [
  { name: "none", query: () => ({}) },
  { name: "action", query: () => ({ action: "bench.action.7" }) },
  { name: "actor", query: ({ actorId }) => ({ actor_user_id: actorId }) },
  { name: "target", query: () => ({ target_id: "target-93" }) },
  {
    name: "one month (since, until)",
    query: ({ now }) => ({
      since: new Date(now - 100 * DAY_MS).toISOString(),
      until: new Date(now - 70 * DAY_MS).toISOString(),
    }),
  },
  { name: "action matching nothing", query: () => ({ action: "bench.action.none" }) },
  { name: "organization's, an action", org: true, query: () => ({ action: "bench.action.7" }) },
  { name: "deep page (cursor)", query: ({ deepCursor }) => ({ cursor: deepCursor }) },
];

/** A trail of `size` events on a database of its own, its process-wide client and the bench's ids. */
async function trail(name: string, size: number) {
  const url = await freshDatabase(name);
  const client = new pg.Client({ connectionString: url });
  // Dropping the database at the end (or after a failure) ends this connection: not an error.
  client.on("error", () => undefined);
  await client.connect();
  await client.query(
    `INSERT INTO users (username, display_name, created_by, updated_by)
     SELECT 'bench_actor_' || lpad(i::text, 4, '0'), 'Actor ' || i, 'system:bench', 'system:bench' FROM generate_series(1, ${ACTORS}) i;
     INSERT INTO organizations (name, created_by, updated_by)
     SELECT 'bench_org_' || lpad(i::text, 3, '0'), 'system:bench', 'system:bench' FROM generate_series(1, ${ORGS}) i;`,
  );
  const started = performance.now();
  for (let from = 0; from < size; from += 250_000)
    await insertEvents(client, from, Math.min(size, from + 250_000), size);
  say(`  ${size.toLocaleString("en")} events in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  const { client: prisma, actor } = await signedInClient(url);
  const id = async (sql: string, values: unknown[] = []) =>
    (await client.query<{ id: string }>(sql, values)).rows[0]?.id as string;
  // The cursor of the event half-way down the list: the next page is deep in the trail.
  const middle = await id("SELECT id FROM audit_events ORDER BY occurred_at DESC, id DESC OFFSET $1 LIMIT 1", [
    Math.floor(size / 2),
  ]);
  const context = {
    actorId: await id("SELECT id FROM users WHERE username = 'bench_actor_0004'"),
    deepCursor: Buffer.from(JSON.stringify(middle)).toString("base64url"),
    now: Date.now(),
  };
  const org = await id("SELECT id FROM organizations WHERE name = 'bench_org_008'");
  await client.end();
  return { name, size, prisma, actor, context, org };
}

async function main() {
  const startedAt = new Date();
  say(`Audit trail's list at ${SMALL.toLocaleString("en")} and ${EVENTS.toLocaleString("en")} events…`);
  const trails = [await trail(`${DB_NAME}_small`, SMALL), await trail(`${DB_NAME}_large`, EVENTS)];
  const { list, listInOrganization } = OPERATION_GROUPS.auditEvents;
  // Call by call, the small trail and the large one in turns (each its own process-wide client):
  // both see the same moment of a shared machine.
  const call = async (t: (typeof trails)[number], filter: Filter) => {
    makeProcessWide(t.prisma);
    const operation = (filter.org ? listInOrganization : list) as AnyOperation;
    const raw = { params: filter.org ? { org_id: t.org } : {}, query: filter.query(t.context), body: () => undefined };
    const started = performance.now();
    const page = (await invoke(operation, t.actor, raw)) as { data: unknown[] };
    return { ms: performance.now() - started, items: page.data.length };
  };
  const figures = trails.map(() => ({}) as Record<string, { p50: number; p95: number; items: number }>);
  for (const filter of FILTERS) {
    const times = trails.map(() => [] as number[]);
    const items = trails.map(() => 0);
    for (let i = 0; i < RUNS + 5; i++) {
      for (const [n, t] of (i % 2 ? [...trails].reverse() : trails).entries()) {
        const index = i % 2 ? trails.length - 1 - n : n;
        const result = await call(t, filter);
        if (i >= 5) times[index]?.push(result.ms);
        items[index] = result.items;
      }
    }
    for (const [index, list] of times.entries()) {
      list.sort((x, y) => x - y);
      (figures[index] as Record<string, unknown>)[filter.name] = {
        p50: median(list),
        p95: percentile(list, 95),
        items: items[index],
      };
    }
  }
  const [small, large] = figures as [(typeof figures)[number], (typeof figures)[number]];
  for (const t of trails) await t.prisma.$disconnect();

  reportHeader("audit-history");
  say(`  ${RUNS} calls per filter and size through invoke() in process, after 5 to warm up; a page of 50; ms`);
  say(
    `${pad("filter", 28)}${lpad(`${SMALL.toLocaleString("en")} p50`, 11)}${lpad("p95", 8)}${lpad(`${EVENTS.toLocaleString("en")} p50`, 15)}${lpad("p95", 8)}${lpad("growth", 8)}${lpad("items", 7)}  target ≤ ${TARGET_GROWTH}× and p95 < ${TARGET_P95_MS} ms`,
  );
  const rows = FILTERS.map(({ name }) => {
    const s = small[name] as { p50: number; p95: number };
    const l = large[name] as { p50: number; p95: number; items: number };
    const growth = l.p50 / s.p50;
    const met = growth <= TARGET_GROWTH && l.p95 < TARGET_P95_MS;
    say(
      `${pad(name, 28)}${lpad(f(s.p50), 11)}${lpad(f(s.p95), 8)}${lpad(f(l.p50), 15)}${lpad(f(l.p95), 8)}${lpad(`${f(growth)}×`, 8)}${lpad(String(l.items), 7)}  ${met ? "met" : "MISSED"}`,
    );
    return { filter: name, small: s, large: l, growth, met };
  });
  say();
  say(`Results: ${await writeResults("audit-history", startedAt, { events: EVENTS, runs: RUNS, rows })}`);
}

await runBenchmark(main, [`${DB_NAME}_small`, `${DB_NAME}_large`]);
