// `npm run bench:pooler-timeouts`: what the statement timeouts cost behind PgBouncer in transaction
// mode, set as the role's settings (what the app does) against SET LOCAL in every read.
// See docs/benchmarks.md#timeouts-behind-a-pooler and docs/decisions/040-timeouts-behind-a-pooler.md.

import pg from "pg";
import { migrate } from "@/server/db/migrate";
import { startPgBouncer } from "@/test/pgbouncer";
import { adminQuery, databaseUrl, dropDatabase, f, intSetting, latencies, machineLine, say, writeResults } from "./lib";

const CLIENTS = intSetting("BENCH_CLIENTS", 4, 1, 50);
const SLOT_MS = intSetting("BENCH_SLOT_MS", 2_000, 200, 60_000);
const ROUNDS = intSetting("BENCH_ROUNDS", 5, 1, 50);
const DATABASE = "svc_bench_pooler";
const READ = "SELECT id FROM api_keys WHERE key_hash = $1";

type Mode = "role" | "local";

async function read(client: pg.Client, mode: Mode, hash: string) {
  if (mode === "role") return client.query(READ, [hash]);
  await client.query("BEGIN");
  await client.query("SET LOCAL statement_timeout = 3000");
  await client.query("SET LOCAL idle_in_transaction_session_timeout = 10000");
  const result = await client.query(READ, [hash]);
  await client.query("COMMIT");
  return result;
}

async function slot(clients: pg.Client[], mode: Mode, samples: number[]): Promise<number> {
  const until = performance.now() + SLOT_MS;
  let count = 0;
  await Promise.all(
    clients.map(async (client, i) => {
      while (performance.now() < until) {
        const started = performance.now();
        await read(client, mode, `bench-${i}-${count}`);
        samples.push(performance.now() - started);
        count++;
      }
    }),
  );
  return count / (SLOT_MS / 1000);
}

async function main() {
  const startedAt = new Date();
  say(`bench:pooler-timeouts — ${CLIENTS} clients through PgBouncer. ${machineLine()}`);
  await adminQuery(`DROP DATABASE IF EXISTS "${DATABASE}" WITH (FORCE)`);
  await adminQuery(`CREATE DATABASE "${DATABASE}"`);
  const direct = databaseUrl(DATABASE);
  await migrate(direct);
  const pooler = await startPgBouncer(undefined, { stopAfterTests: false });
  const clients = await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: pooler.pooled(direct) });
      await client.connect();
      return client;
    }),
  );
  try {
    const rates: Record<Mode, number[]> = { role: [], local: [] };
    const samples: Record<Mode, number[]> = { role: [], local: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const mode of round % 2 ? (["local", "role"] as const) : (["role", "local"] as const))
        rates[mode].push(await slot(clients, mode, samples[mode]));
    const results: Record<string, unknown> = {};
    for (const mode of ["role", "local"] as const) {
      const rate = rates[mode].reduce((a, b) => a + b, 0) / rates[mode].length;
      const l = latencies(samples[mode]);
      say(`${mode.padEnd(6)} ${f(rate, 0).padStart(7)} reads/s   p50 ${f(l.p50)} ms   p99 ${f(l.p99)} ms`);
      results[mode] = { readsPerSecond: Math.round(rate), p50: l.p50, p99: l.p99 };
    }
    const ratio =
      rates.local.reduce((a, b) => a + b, 0) /
      Math.max(
        1,
        rates.role.reduce((a, b) => a + b, 0),
      );
    say(`local/role throughput: ${f(ratio, 3)}`);
    say(`results: ${await writeResults("pooler-timeouts", startedAt, { clients: CLIENTS, ...results, ratio })}`);
  } finally {
    await Promise.all(clients.map((c) => c.end()));
    await pooler.stop();
    await dropDatabase(DATABASE);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
