// Starts the app for the Playwright run on a fresh database of its own on the test PostgreSQL
// server (TEST_DATABASE_URL), exactly as `npm start` runs it, and drops that database on exit.
import { spawn } from "node:child_process";
import pg from "pg";
import { E2E_ADMIN, e2eDatabase } from "./e2e-env.mjs";

const { server: admin, name, url } = e2eDatabase();

async function adminQuery(sql) {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
await adminQuery(`CREATE DATABASE "${name}"`);

const child = spawn(
  process.execPath,
  ["node_modules/tsx/dist/cli.mjs", "--import", "./scripts/server-only.mjs", "src/cli/main.ts", "serve"],
  {
    stdio: "inherit",
    env: {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: url,
      SVC_ADMIN_USERNAME: E2E_ADMIN.username,
      SVC_ADMIN_PASSWORD: E2E_ADMIN.password,
      // The webhook flow delivers to a receiver of its own on this machine (http, loopback).
      SVC_ALLOW_HTTP_LOOPBACK: "1",
    },
  },
);

const stop = () => child.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", async (code) => {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  process.exit(code ?? 0);
});
