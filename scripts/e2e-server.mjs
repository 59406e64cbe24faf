// Starts the app for the Playwright run on a fresh database of its own on the test PostgreSQL
// server (TEST_DATABASE_URL), exactly as `npm start` runs it, and drops that database on exit.
import { spawn } from "node:child_process";
import pg from "pg";

const admin = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const name = process.env.E2E_DATABASE ?? "svc_e2e";
const url = new URL(admin);
url.pathname = `/${name}`;

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

const child = spawn(process.execPath, ["node_modules/tsx/dist/cli.mjs", "src/cli/main.ts", "serve"], {
  stdio: "inherit",
  env: {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: url.toString(),
    SVC_ADMIN_USERNAME: process.env.E2E_ADMIN_USERNAME ?? "e2e-admin",
    SVC_ADMIN_PASSWORD: process.env.E2E_ADMIN_PASSWORD ?? "e2e-admin-password-1",
  },
});

const stop = () => child.kill("SIGTERM");
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
child.on("exit", async (code) => {
  await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
  process.exit(code ?? 0);
});
