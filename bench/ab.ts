// `npm run bench:ab`: one route on two app servers side by side, A and B, that differ by their
// environment (BENCH_AB_A, BENCH_AB_B: `NAME=value` pairs separated by spaces; a second build is
// `NEXT_DIST_DIR=<folder>` in one of them). Each serves a database of its own, set up alike (the
// same keys), and they take turns under the same load in slots of BENCH_AB_SLOT_MS, A then B, then
// B then A, for BENCH_AB_ROUNDS rounds after BENCH_AB_WARMUP_ROUNDS unmeasured ones: absolute
// figures drift on a shared machine, the ratio of neighbouring slots much less.
//
// Two figures per run, each the median of the rounds' ratios (bench/load.ts, pairedRatio):
// - throughput A/B: responses per second in each slot;
// - cost A/B: CPU per response in each slot, of the app's process and of the PostgreSQL backends
//   serving its database (read from /proc). Throughput follows the share of the CPUs the servers
//   get from whatever else runs on the machine; the CPU a response costs hardly does, so on a busy
//   machine the cost ratio is the steadier of the two.
// Then the median of BENCH_AB_RUNS runs, each with both servers started afresh (A first, then B first).
//
// Routes (BENCH_AB_ROUTE), sent with API keys over BENCH_AB_CONNECTIONS keep-alive connections per
// server (a lean node:http client in this process):
//   me        GET /api/v1/me, rotating among the keys of BENCH_AB_ACTORS users
//   orgs      GET /api/v1/organizations, the same keys
//   change    PATCH /api/v1/organizations/{id} (a description, with its audit event), rotating
//             among 50 organizations, as the seeded sys_admin
//   change-webhook  the same while a webhook endpoint wants organization.updated (the servers run
//             no queue workers: a change writes its deliveries, nothing sends them)
//   history   GET …/conversations/{id}/messages, the first page of a conversation of 300 messages
//             begun four months ago (six months of partitions), as the seeded sys_admin
// BENCH_AB_CIDRS restricts the users' keys to that many networks, loopback last (as `npm run bench`
// does). Other settings: BENCH_AB_DB (the databases' name before _a, _b; default svc_bench_ab),
// BENCH_DATABASE_URL, BENCH_KEEP_DB=1.

import http from "node:http";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { generateKey } from "@/server/auth/api-key-format";
import { readContext } from "@/server/db/context";
import { createWebhookEndpoint } from "@/server/services/webhooks/endpoints";
import { CLK_TCK } from "./cpu-time";
import {
  ADMIN_URL,
  ensureBuild,
  f,
  freshDatabase,
  intSetting,
  machineLine,
  median,
  runBenchmark,
  say,
  signedInClient,
  startApp,
  stopApp,
  writeResults,
  type App,
} from "./lib";
import { pairedRatio } from "./load";

const DB_NAME = process.env.BENCH_AB_DB || "svc_bench_ab";
const DB_NAMES = { A: `${DB_NAME}_a`, B: `${DB_NAME}_b` };
type SideName = keyof typeof DB_NAMES;
const ROUTES = ["me", "orgs", "change", "change-webhook", "history"] as const;
type Route = (typeof ROUTES)[number];
const ROUTE = (process.env.BENCH_AB_ROUTE || "me") as Route;
if (!ROUTES.includes(ROUTE)) throw new Error(`BENCH_AB_ROUTE: one of ${ROUTES.join(", ")}`);
const SLOT_MS = intSetting("BENCH_AB_SLOT_MS", 1_000, 200, 30_000);
const SETTLE_MS = intSetting("BENCH_AB_SETTLE_MS", 50, 0, SLOT_MS - 100);
const ROUNDS = intSetting("BENCH_AB_ROUNDS", 40, 2, 1_000);
const WARMUP_ROUNDS = intSetting("BENCH_AB_WARMUP_ROUNDS", 10, 0, 200);
const RUNS = intSetting("BENCH_AB_RUNS", 3, 1, 9);
const CONNECTIONS = intSetting("BENCH_AB_CONNECTIONS", 10, 1, 200);
const ACTORS = intSetting("BENCH_AB_ACTORS", 200, 1, 5_000);
const CIDRS = intSetting("BENCH_AB_CIDRS", 0, 0, 100);
const ORGANIZATIONS = 50;
const RATE_LIMIT = JSON.stringify({ requests: 10_000_000, window_seconds: 60 });
// The bench measures the route: no limit on failed authentications, no deliveries sent.
const APP_ENV = { SVC_AUTH_FAILURE_LIMIT: "0", SVC_JOBS: "0", SVC_ALLOW_HTTP_LOOPBACK: "1" };

function envSet(name: string): Record<string, string> {
  const pairs = (process.env[name] ?? "").split(/\s+/).filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const at = pair.indexOf("=");
      if (at < 1) throw new Error(`${name}: NAME=value pairs separated by spaces`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
}
const SIDES = { A: envSet("BENCH_AB_A"), B: envSet("BENCH_AB_B") };

const userKeys = Array.from({ length: ACTORS }, () => generateKey());
const adminKeys = Array.from({ length: CONNECTIONS }, () => generateKey());

async function insertKeys(
  client: pg.Client,
  userIds: string[],
  keys: ReturnType<typeof generateKey>[],
  scopes: string[],
  cidrs: string[],
) {
  await client.query(
    `INSERT INTO api_keys (user_id, name, key_hash, key_prefix, scopes, rate_limit, allowed_cidrs, updated_by)
     SELECT u, 'ab key', h, p, $4::jsonb, $5::jsonb, $6::varchar[], 'system:bench'
     FROM unnest($1::uuid[], $2::text[], $3::text[]) AS t(u, h, p)`,
    [userIds, keys.map((k) => k.hash), keys.map((k) => k.prefix), JSON.stringify(scopes), RATE_LIMIT, cidrs],
  );
}

/** One side's database: organizations, users in two of them, their keys and the sys_admin's; its organizations' ids. */
/** What a side's requests name: its organizations, and for `history` the conversation's path. */
interface Database {
  url: string;
  orgs: string[];
  conversation?: string;
}

async function setup(name: string): Promise<Database> {
  const url = await freshDatabase(name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let orgs: string[];
  let conversationPath: string | undefined;
  try {
    const ids = async (sql: string, values: unknown[]) =>
      (await client.query<{ id: string }>(sql, values)).rows.map((r) => r.id);
    orgs = await ids(
      `INSERT INTO organizations (name, created_by, updated_by)
       SELECT 'ab_org_' || i, 'system:bench', 'system:bench' FROM generate_series(1, $1) AS i RETURNING id`,
      [ORGANIZATIONS],
    );
    const users = await ids(
      `INSERT INTO users (username, display_name, created_by, updated_by)
       SELECT 'ab_user_' || i, 'AB user ' || i, 'system:bench', 'system:bench' FROM generate_series(1, $1) AS i RETURNING id`,
      [ACTORS],
    );
    await client.query(
      "INSERT INTO user_org_memberships (user_id, org_id) SELECT u, o FROM unnest($1::uuid[]) AS u, unnest($2::uuid[]) AS o",
      [users, orgs.slice(0, 2)],
    );
    const elsewhere = Array.from({ length: Math.max(0, CIDRS - 2) }, (_, i) => `10.${i}.0.0/16`);
    const cidrs = CIDRS === 0 ? [] : [...elsewhere, "127.0.0.0/8", "::1/128"].slice(-CIDRS);
    await insertKeys(client, users, userKeys, ["svc:org:read"], cidrs);
    const admin = await ids("SELECT id FROM users WHERE username = 'admin'", []);
    const adminIds = adminKeys.map(() => admin[0] as string);
    await insertKeys(client, adminIds, adminKeys, ["svc:org:read", "svc:org:write", "svc:conversations:read"], []);
    if (ROUTE === "history")
      conversationPath = `${orgs[0]}/conversations/${await conversation(client, orgs[0] as string, admin[0] as string)}`;
    await client.query("VACUUM ANALYZE");
  } finally {
    await client.end();
  }
  if (ROUTE === "change-webhook") {
    const { client: prisma, actor } = await signedInClient(url);
    await createWebhookEndpoint(readContext(actor, prisma), null, {
      url: "http://127.0.0.1:9/unused",
      description: null,
      event_types: ["organization.updated"],
      enabled: true,
    });
    await prisma.$disconnect();
  }
  return { url, orgs, conversation: conversationPath };
}

/** A conversation of 300 messages begun four months ago, with partitions for the six months past (as `npm run bench:messages` has). */
async function conversation(client: pg.Client, orgId: string, userId: string): Promise<string> {
  const now = new Date();
  for (let back = 6; back >= 1; back--) {
    const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1));
    const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back + 1, 1));
    const name = `messages_p${from.getUTCFullYear()}_${String(from.getUTCMonth() + 1).padStart(2, "0")}`;
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${name} PARTITION OF messages FOR VALUES FROM ('${from.toISOString()}') TO ('${to.toISOString()}')`,
    );
  }
  const by = "system:bench";
  const { rows: instance } = await client.query<{ id: string }>(
    "INSERT INTO orchestrator_instances (org_id, name, framework_type, mode, created_by, updated_by) VALUES ($1, 'ab instance', 'langgraph', 'supervisor', $2, $2) RETURNING id",
    [orgId, by],
  );
  const { rows: conv } = await client.query<{ id: string }>(
    `INSERT INTO conversations (org_id, user_id, instance_id, title, created_at, updated_at, created_by, updated_by)
     VALUES ($1, $2, $3, 'ab', now() - interval '120 days', now(), $4, $4) RETURNING id`,
    [orgId, userId, instance[0]?.id, by],
  );
  await client.query(
    `INSERT INTO messages (org_id, conv_id, turn_id, user_id, instance_id, role, content, status, source, metadata, created_at)
     SELECT $1, $2, gen_random_uuid(), $3, $4, CASE WHEN g % 2 = 0 THEN 'assistant' ELSE 'user' END,
            repeat(md5(g::text), 1 + g % 16), 'complete', 'human', jsonb_build_object('tokens', g),
            now() - interval '120 days' * (1 - g::float8 / 301)
     FROM generate_series(1, 300) g`,
    [orgId, conv[0]?.id, userId, instance[0]?.id],
  );
  return conv[0]?.id as string;
}

interface Request {
  method: string;
  path: string;
  key: string;
  body?: string;
}

function requests({ orgs, conversation }: Database): (n: number) => Request {
  const userKey = (n: number) => (userKeys[n % userKeys.length] as { raw: string }).raw;
  switch (ROUTE) {
    case "me":
      return (n) => ({ method: "GET", path: "/api/v1/me", key: userKey(n) });
    case "orgs":
      return (n) => ({ method: "GET", path: "/api/v1/organizations", key: userKey(n) });
    case "history":
      return (n) => ({
        method: "GET",
        path: `/api/v1/organizations/${conversation}/messages?limit=50`,
        key: (adminKeys[n % adminKeys.length] as { raw: string }).raw,
      });
    case "change":
    case "change-webhook":
      return (n) => ({
        method: "PATCH",
        path: `/api/v1/organizations/${orgs[n % orgs.length]}`,
        key: (adminKeys[n % adminKeys.length] as { raw: string }).raw,
        body: JSON.stringify({ description: `ab ${n}` }),
      });
  }
}

interface Side {
  name: SideName;
  app: App;
  agent: http.Agent;
  next: (n: number) => Request;
  unexpected: number;
}

function send(side: Side, request: Request): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        agent: side.agent,
        host: "127.0.0.1",
        port: new URL(side.app.baseUrl).port,
        method: request.method,
        path: request.path,
        headers: { "x-api-key": request.key, ...(request.body ? { "content-type": "application/json" } : {}) },
      },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}

/** CPU ticks spent so far by each of these processes still running, from /proc. */
function ticksOf(pids: number[]): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // exited
    }
  }
  return ticks;
}

/** CPU (ms) between two readings, of the processes in both (a connection closed meanwhile counts nothing). */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, t] of after) if (before.has(pid)) ticks += t - (before.get(pid) as number);
  return (ticks * 1000) / CLK_TCK;
}

let sent = 0;

/**
 * One slot: every connection sends to `side`, one request at a time, until the slot ends. Its
 * throughput counts the responses after the first SETTLE_MS; its cost, the CPU of the slot's
 * whole span per response.
 */
async function slot(side: Side, monitor: pg.Client) {
  const backends = (
    await monitor.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
      [DB_NAMES[side.name]],
    )
  ).rows.map((r) => r.pid);
  const pids = [side.app.pid, ...backends];
  const cpuBefore = ticksOf(pids);
  const started = performance.now();
  const windowStart = started + SETTLE_MS;
  const end = started + SLOT_MS;
  let counted = 0;
  let responses = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        if ((await send(side, side.next(sent++))) !== 200) side.unexpected++;
        responses++;
        const now = performance.now();
        if (now >= windowStart && now <= end) counted++;
      }
    }),
  );
  const cpuMs = cpuBetween(cpuBefore, ticksOf(pids));
  return { rps: (counted * 1000) / (SLOT_MS - SETTLE_MS), cpuUs: (cpuMs * 1000) / Math.max(1, responses) };
}

async function run(index: number, databases: Record<SideName, Database>, monitor: pg.Client) {
  const order: SideName[] = index % 2 === 0 ? ["A", "B"] : ["B", "A"];
  const sides = {} as Record<SideName, Side>;
  for (const name of order) {
    const { url } = databases[name];
    const keys = { SVC_ENCRYPTION_KEYS: process.env.SVC_ENCRYPTION_KEYS as string };
    const app = await startApp(url, { ...APP_ENV, ...keys, ...SIDES[name] });
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    sides[name] = { name, app, agent, next: requests(databases[name]), unexpected: 0 };
    const status = await send(sides[name], sides[name].next(0));
    if (status !== 200) throw new Error(`${name} answered ${status} before the run:\n${app.output()}`);
  }
  const rps = { A: [] as number[], B: [] as number[] };
  const cpuUs = { A: [] as number[], B: [] as number[] };
  for (let round = -WARMUP_ROUNDS; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? order : [...order].reverse()) {
      const figures = await slot(sides[name], monitor);
      if (round < 0) continue;
      rps[name].push(figures.rps);
      cpuUs[name].push(figures.cpuUs);
    }
  }
  for (const side of Object.values(sides)) side.agent.destroy();
  await stopApp();
  const throughput = pairedRatio(rps.B, rps.A);
  const cost = pairedRatio(cpuUs.B, cpuUs.A);
  const unexpected = { A: sides.A.unexpected, B: sides.B.unexpected };
  say(
    `run ${index + 1}: throughput A ${f(median(rps.A), 0)}/s, B ${f(median(rps.B), 0)}/s, A/B ${f(throughput.ratio, 3)} (p10 ${f(throughput.p10, 2)}, p90 ${f(throughput.p90, 2)}); ` +
      `CPU per response A ${f(median(cpuUs.A), 0)} µs, B ${f(median(cpuUs.B), 0)} µs, A/B ${f(cost.ratio, 3)} (p10 ${f(cost.p10, 2)}, p90 ${f(cost.p90, 2)}); unexpected statuses ${JSON.stringify(unexpected)}`,
  );
  return { rps, cpuUs, throughput, cost, unexpected };
}

async function main() {
  // Read once, by whatever reads the environment first: the endpoint's secret is encrypted here
  // and read by the servers with the same keys.
  process.env.SVC_ALLOW_HTTP_LOOPBACK = "1";
  process.env.SVC_ENCRYPTION_KEYS ??= `v1:${randomBytes(32).toString("base64")}`;
  const startedAt = new Date();
  const build = ensureBuild();
  const loadAtStart = machineLine().replace("at end", "at start");
  say(
    `A/B on ${ROUTE}: A ${JSON.stringify(process.env.BENCH_AB_A ?? "")}, B ${JSON.stringify(process.env.BENCH_AB_B ?? "")}`,
  );
  say(
    `${RUNS} runs × ${ROUNDS} rounds (+${WARMUP_ROUNDS} warm-up) of ${SLOT_MS} ms slots, ${CONNECTIONS} connections, ${ACTORS} users' keys${CIDRS ? `, ${CIDRS} networks each` : ""}.`,
  );
  const databases = { A: await setup(DB_NAMES.A), B: await setup(DB_NAMES.B) };
  const monitor = new pg.Client({ connectionString: ADMIN_URL });
  await monitor.connect();
  const runs = [];
  try {
    for (let i = 0; i < RUNS; i++) runs.push(await run(i, databases, monitor));
  } finally {
    await monitor.end();
  }
  if (ROUTE === "change-webhook") {
    // The route's premise: each change wrote its webhook message.
    for (const name of ["A", "B"] as const) {
      const client = new pg.Client({ connectionString: databases[name].url });
      await client.connect();
      const count = await client.query<{ n: string }>("SELECT count(*) AS n FROM webhook_messages");
      await client.end();
      say(`${name}: ${count.rows[0]?.n} webhook messages written`);
    }
  }
  const throughput = median(runs.map((r) => r.throughput.ratio));
  const cost = median(runs.map((r) => r.cost.ratio));
  say();
  say(
    `throughput A/B, median of ${RUNS} runs: ${f(throughput, 3)} (${runs.map((r) => f(r.throughput.ratio, 3)).join(", ")})`,
  );
  say(
    `CPU per response A/B, median of ${RUNS} runs: ${f(cost, 3)} (${runs.map((r) => f(r.cost.ratio, 3)).join(", ")})`,
  );
  say(loadAtStart);
  say(machineLine());
  const file = await writeResults(`ab-${ROUTE}`, startedAt, {
    build,
    route: ROUTE,
    sides: SIDES,
    settings: { SLOT_MS, SETTLE_MS, ROUNDS, WARMUP_ROUNDS, RUNS, CONNECTIONS, ACTORS, CIDRS },
    throughput,
    cost,
    runs,
  });
  say(`Results: ${file}`);
}

await runBenchmark(main, Object.values(DB_NAMES));
