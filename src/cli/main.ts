import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import pg from "pg";
import { createBaseClient } from "@/server/db/client";
import { dataLayer } from "@/server/db/data-layer";
import { resolveDatabase, type ResolvedDatabase } from "@/server/db/database";
import { mapDatabaseError } from "@/server/db/errors";
import { migrate } from "@/server/db/migrate";
import { ensureMessagePartitions, PARTITION_MONTHS_AHEAD } from "@/server/db/partitions";
import { env } from "@/server/env";
import { generatePassword } from "@/server/auth/passwords";
import { createSysAdmin, seed } from "@/server/seed/seed";

// The operator CLI: `npm run svc -- <command>`. Uses DATABASE_URL like the app (the embedded
// database when it is unset). Errors are reported in one line with a non-zero exit.

const USAGE = `Usage: npm run svc -- <command>

Commands:
  migrate                                   apply pending migrations
  seed                                      add built-in roles, tier settings, model catalog, first admin
  create-admin --username U [--email E]     create a sys_admin (password from SVC_ADMIN_PASSWORD, else printed once)
  partitions ensure [--months N]            create message partitions N months ahead (default ${PARTITION_MONTHS_AHEAD})
  serve [--dev]                             migrate, seed and run the app (what npm start / npm run dev do)`;

const CLI_ACTOR = "system:cli";

class UsageError extends Error {}

async function withDatabase<T>(work: (db: ResolvedDatabase) => Promise<T>): Promise<T> {
  const db = await resolveDatabase();
  try {
    return await work(db);
  } finally {
    await db.release();
  }
}

async function prepare(url: string) {
  const result = await migrate(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await ensureMessagePartitions(client);
  } finally {
    await client.end();
  }
  const prisma = createBaseClient(url, 2);
  try {
    const { SVC_ADMIN_USERNAME, SVC_ADMIN_EMAIL, SVC_ADMIN_PASSWORD } = env();
    const seeded = await seed(prisma, {
      username: SVC_ADMIN_USERNAME,
      email: SVC_ADMIN_EMAIL,
      password: SVC_ADMIN_PASSWORD,
    });
    return { ...result, ...seeded };
  } finally {
    await prisma.$disconnect();
  }
}

function printAdmin(admin: { username: string; password?: string } | undefined) {
  if (!admin) return;
  console.log(`Created the first sys_admin: username "${admin.username}".`);
  if (admin.password) {
    console.log(`  password: ${admin.password}`);
    console.log("  This password is shown once. Keep it somewhere safe.");
  }
}

const commands: Record<string, (args: string[]) => Promise<void>> = {
  async migrate() {
    await withDatabase(async ({ url }) => {
      const { applied, alreadyApplied } = await migrate(url);
      console.log(
        applied.length
          ? `Applied ${applied.length} migration(s): ${applied.join(", ")}.`
          : `Database is up to date (${alreadyApplied.length} migration(s) applied).`,
      );
    });
  },

  async seed() {
    await withDatabase(async ({ url }) => {
      const { createdAdmin } = await prepare(url);
      console.log("Seed complete.");
      printAdmin(createdAdmin);
    });
  },

  async "create-admin"(args) {
    const { values } = parseArgs({ args, options: { username: { type: "string" }, email: { type: "string" } } });
    if (!values.username) throw new UsageError("create-admin needs --username U");
    const username = values.username;
    await withDatabase(async ({ url }) => {
      const prisma = createBaseClient(url, 1);
      try {
        const given = env().SVC_ADMIN_PASSWORD;
        const password = given ?? generatePassword();
        await createSysAdmin(dataLayer(CLI_ACTOR, { client: prisma }), {
          username,
          email: values.email,
          password,
        });
        printAdmin({ username, password: given ? undefined : password });
      } finally {
        await prisma.$disconnect();
      }
    });
  },

  async partitions(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: { months: { type: "string" } },
    });
    if (positionals[0] !== "ensure") throw new UsageError("partitions needs the subcommand: ensure");
    const months = values.months === undefined ? PARTITION_MONTHS_AHEAD : Number(values.months);
    if (!Number.isInteger(months) || months < 0 || months > 120) {
      throw new UsageError("--months must be an integer from 0 to 120");
    }
    await withDatabase(async ({ url }) => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const created = await ensureMessagePartitions(client, months);
        console.log(`Message partitions ready ${months} month(s) ahead (${created} created).`);
      } finally {
        await client.end();
      }
    });
  },

  async serve(args) {
    const { values } = parseArgs({ args, options: { dev: { type: "boolean", default: false } } });
    const { PORT } = env();
    process.env.NEXT_TELEMETRY_DISABLED ??= "1";
    const db = await resolveDatabase();
    try {
      const { createdAdmin } = await prepare(db.url);
      const nextBin = "node_modules/next/dist/bin/next";
      if (!values.dev && !existsSync(".next/BUILD_ID")) {
        console.log("No production build yet: running next build first.");
        await run(process.execPath, [nextBin, "build"], process.env);
      }
      console.log(`\nsvc is starting on ${db.embedded ? "the embedded database" : "DATABASE_URL"}.`);
      console.log(`  Console sign-in: http://localhost:${PORT}/console/sign-in`);
      console.log(`  API reference:   http://localhost:${PORT}/api/docs`);
      printAdmin(createdAdmin);
      if (!createdAdmin) console.log("  Sign in with your sys_admin account (npm run svc -- create-admin makes another).");
      const childEnv = {
        ...process.env,
        DATABASE_URL: db.url,
        ...(db.embedded ? { DATABASE_POOL_MAX: "8" } : {}),
      };
      await run(process.execPath, [nextBin, values.dev ? "dev" : "start", "-p", String(PORT)], childEnv, true);
    } finally {
      await db.release();
    }
  },
};

/** Runs a child process to completion; with `forwardSignals`, Ctrl-C stops it cleanly first. */
function run(command: string, args: string[], childEnv: NodeJS.ProcessEnv, forwardSignals = false) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { env: childEnv, stdio: "inherit" });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    if (forwardSignals) {
      process.on("SIGINT", forward);
      process.on("SIGTERM", forward);
    }
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      if (code === 0 || signal === "SIGINT" || signal === "SIGTERM") resolve();
      else reject(new Error(`${args.slice(1).join(" ")} exited with ${code ?? signal}`));
    });
    child.on("error", reject);
  });
}

/** One line an operator can act on, never a stack trace. */
export function describeError(error: unknown): string {
  const e = error as { code?: string; message?: string; address?: string; port?: number };
  if (e?.code === "ECONNREFUSED") return `Cannot reach PostgreSQL at ${e.address ?? "?"}:${e.port ?? "?"} (connection refused).`;
  if (e?.code === "ENOTFOUND") return `Cannot resolve the database host (${e.message}).`;
  if (e?.code === "3D000") return `The database does not exist: ${e.message}.`;
  if (e?.code === "28P01" || e?.code === "28000") return `PostgreSQL refused the credentials: ${e.message}.`;
  const domain = mapDatabaseError(error);
  if (domain) return domain.message;
  return (e?.message ?? String(error)).split("\n")[0] ?? "Unknown error.";
}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.error(name && name !== "help" && name !== "--help" ? `Unknown command: ${name}\n\n${USAGE}` : USAGE);
    process.exitCode = name === "help" || name === "--help" ? 0 : 2;
    return;
  }
  await command(args);
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(`svc: ${error instanceof UsageError ? error.message : describeError(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
