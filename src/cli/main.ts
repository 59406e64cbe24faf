import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { createBaseClient, maintenanceConnectionSettings, useBaseClient } from "@/server/db/client";
import { readContext } from "@/server/db/context";
import { dataLayer } from "@/server/db/data-layer";
import { resolveDatabase, type ResolvedDatabase } from "@/server/db/database";
import { migrate } from "@/server/db/migrate";
import { connectClient } from "@/server/db/pooler";
import { ensureMessagePartitions, PARTITION_MONTHS_AHEAD } from "@/server/db/partitions";
import { env } from "@/server/env";
import { generatePassword } from "@/server/auth/passwords";
import { createSysAdmin, seed } from "@/server/seed/seed";
import { systemActor } from "@/server/auth/actor";
import { announcingOnRedis } from "@/server/auth/invalidation";
import { newKeySpec } from "@/server/crypto/secret-box";
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey } from "@/server/services/api-keys/service";
import { reencryptLlmKeys } from "@/server/services/llm-configs/service";
import { NO_REQUEST } from "@/server/services/audit/record";
import { auditedChange } from "@/server/operations/invoke";
import { apiKeyOperations } from "@/server/operations/api-keys";
import {
  apiKeyIdParams,
  createApiKeyInput,
  listApiKeysQuery,
  parseDuration,
  parseRateLimit,
  rollApiKeyInput,
} from "@/lib/schemas/api-keys";
import { DomainError } from "@/server/errors";
import { z } from "zod";
import { DB_USAGE, dbCommand } from "./db";
import { describeError, UsageError } from "./errors";

// The operator CLI: `npm run svc -- <command>`. Uses DATABASE_URL like the app (the embedded
// database when it is unset). Errors are reported in one line with a non-zero exit.

const USAGE = `Usage: npm run svc -- <command>

Commands:
  migrate                                   apply pending migrations
  seed                                      add built-in roles, tier settings, model catalog, first admin
  create-admin --username U [--email E]     create a sys_admin (password from SVC_ADMIN_PASSWORD, else printed once)
  partitions ensure [--months N]            create message partitions N months ahead (default ${PARTITION_MONTHS_AHEAD})
  api-keys create --user U --name N --scope S [--scope S...] [--expires-at ISO] [--rate-limit R/S] [--json]
                                            issue a key for user U; prints the raw key alone (once);
                                            --rate-limit 600/60: at most 600 requests per 60 s
  api-keys list --user U [--json]           list U's keys
  api-keys revoke <key-id>                  revoke a key
  api-keys roll <key-id> [--grace 24h]      replace a key, printing the new raw key alone; the old one
                                            keeps working for the grace (s, m, h or d; default 0, at most 7d)
${DB_USAGE}
  secrets rotate                            re-encrypt provider keys under the current SVC_ENCRYPTION_KEYS version
  serve [--dev]                             migrate, seed and run the app (what npm start / npm run dev do)`;

const CLI_ACTOR = "system:cli";

async function withDatabase<T>(work: (db: ResolvedDatabase) => Promise<T>): Promise<T> {
  const db = await resolveDatabase();
  try {
    return await work(db);
  } finally {
    await db.release();
  }
}

/** A client for the resolved database: the embedded one's connections share one session, so no named statements. */
const clientFor = (db: ResolvedDatabase, poolMax: number) =>
  createBaseClient(db.url, { poolMax, preparedStatements: !db.embedded });

/** Runs service code against the resolved database; its changes to access are announced on Redis too. */
async function withServices(work: () => Promise<void>): Promise<void> {
  await withDatabase(async (db) => {
    const client = clientFor(db, 2);
    useBaseClient(client);
    try {
      await announcingOnRedis(work);
    } finally {
      await client.$disconnect();
    }
  });
}

async function prepare(db: ResolvedDatabase) {
  const result = await migrate(db.directUrl);
  const client = await connectClient({ connectionString: db.directUrl, ...maintenanceConnectionSettings() });
  try {
    await ensureMessagePartitions(client);
  } finally {
    await client.end();
  }
  const prisma = clientFor(db, 2);
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
    await withDatabase(async ({ directUrl }) => {
      const { applied, alreadyApplied } = await migrate(directUrl);
      console.log(
        applied.length
          ? `Applied ${applied.length} migration(s): ${applied.join(", ")}.`
          : `Database is up to date (${alreadyApplied.length} migration(s) applied).`,
      );
    });
  },

  async seed() {
    await withDatabase(async (db) => {
      const { createdAdmin } = await prepare(db);
      console.log("Seed complete.");
      printAdmin(createdAdmin);
    });
  },

  async "create-admin"(args) {
    const { values } = parseArgs({ args, options: { username: { type: "string" }, email: { type: "string" } } });
    if (!values.username) throw new UsageError("create-admin needs --username U");
    const username = values.username;
    await withDatabase(async (db) => {
      const prisma = clientFor(db, 1);
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
    await withDatabase(async ({ directUrl }) => {
      const client = await connectClient({ connectionString: directUrl, ...maintenanceConnectionSettings() });
      try {
        const created = await ensureMessagePartitions(client, months);
        console.log(`Message partitions ready ${months} month(s) ahead (${created} created).`);
      } finally {
        await client.end();
      }
    });
  },

  async "api-keys"(args) {
    const [sub, ...rest] = args;
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        user: { type: "string" },
        name: { type: "string" },
        scope: { type: "string", multiple: true },
        "expires-at": { type: "string" },
        "rate-limit": { type: "string" },
        grace: { type: "string" },
        json: { type: "boolean", default: false },
      },
    });
    await withServices(async () => {
      const actor = systemActor("cli");
      const userId = async () => {
        if (!values.user) throw new UsageError(`api-keys ${sub} needs --user <username>`);
        const user = await dataLayer(CLI_ACTOR).user.findFirst({
          where: { username: values.user },
          select: { id: true },
        });
        if (!user) throw new DomainError("not_found", `No user named ${values.user}.`);
        return user.id;
      };
      if (sub === "create") {
        const rateLimit = values["rate-limit"];
        const parsedRateLimit = rateLimit === undefined ? null : parseRateLimit(rateLimit);
        if (parsedRateLimit === undefined) throw new UsageError("--rate-limit must be REQUESTS/SECONDS, like 600/60");
        const input = validated(createApiKeyInput, {
          name: values.name,
          scopes: values.scope ?? [],
          expires_at: values["expires-at"] ?? null,
          rate_limit: parsedRateLimit,
        });
        const owner = await userId();
        const key = await auditedChange(
          actor,
          NO_REQUEST,
          (ctx) => createApiKey(ctx, owner, input),
          (created) => ({
            action: apiKeyOperations.create.id,
            target: { type: "api_key", id: created.id },
            orgId: null,
          }),
        );
        console.log(values.json ? JSON.stringify(key, null, 2) : key.raw_key);
      } else if (sub === "list") {
        const { data } = await listApiKeys(
          readContext(actor),
          validated(listApiKeysQuery, { user_id: await userId(), limit: "100" }),
        );
        if (values.json) return console.log(JSON.stringify(data, null, 2));
        if (data.length === 0) return console.log("No keys.");
        for (const k of data) {
          const status = k.is_active
            ? k.expires_at && k.expires_at.getTime() <= Date.now()
              ? "expired"
              : "active"
            : "revoked";
          console.log([k.id, k.key_prefix, status.padEnd(7), k.name, k.scopes.join(",")].join("  "));
        }
      } else if (sub === "revoke") {
        const { key_id } = validated(apiKeyIdParams, { key_id: positionals[0] });
        const key = await auditedChange(
          actor,
          NO_REQUEST,
          (ctx) => revokeApiKey(ctx, key_id),
          () => ({
            action: apiKeyOperations.revoke.id,
            target: { type: "api_key", id: key_id },
            orgId: null,
          }),
        );
        console.log(`Revoked ${key.key_prefix}… (${key.id}).`);
      } else if (sub === "roll") {
        const { key_id } = validated(apiKeyIdParams, { key_id: positionals[0] });
        const grace = values.grace === undefined ? 0 : parseDuration(values.grace);
        if (grace === undefined) throw new UsageError("--grace must be a duration, like 0, 90s, 30m, 24h or 7d");
        const input = validated(rollApiKeyInput, { grace_period_seconds: grace });
        const key = await auditedChange(
          actor,
          NO_REQUEST,
          (ctx) => rollApiKey(ctx, key_id, input),
          () => ({
            action: apiKeyOperations.roll.id,
            target: { type: "api_key", id: key_id },
            orgId: null,
          }),
        );
        console.log(values.json ? JSON.stringify(key, null, 2) : key.raw_key);
      } else {
        throw new UsageError("api-keys needs one of: create, list, revoke, roll");
      }
    });
  },

  db: dbCommand,

  async secrets(args) {
    if (args[0] !== "rotate") throw new UsageError("secrets needs the subcommand: rotate");
    await withServices(async () => {
      const actor = systemActor("cli");
      const { changed, unreadable } = await auditedChange(
        actor,
        NO_REQUEST,
        (ctx) => reencryptLlmKeys(ctx),
        () => ({
          action: "rotateEncryptionKeys",
          target: { type: null, id: null },
          orgId: null,
        }),
      );
      console.log(
        `Re-encrypted ${changed} provider key(s) under the current key version, each bound to its LLM config.`,
      );
      if (unreadable.length > 0)
        console.log(`Cannot decrypt (left as they are; set a new key on each): ${unreadable.join(", ")}`);
    });
  },

  async serve(args) {
    const { values } = parseArgs({ args, options: { dev: { type: "boolean", default: false } } });
    const { PORT, SVC_DATA_DIR, DATABASE_URL } = env();
    process.env.NEXT_TELEMETRY_DISABLED ??= "1";
    process.env.AUTH_SECRET ??= await persistedSecret(SVC_DATA_DIR, "auth-secret", () =>
      randomBytes(32).toString("hex"),
    );
    process.env.SVC_ENCRYPTION_KEYS ??= await persistedSecret(SVC_DATA_DIR, "encryption-keys", () => newKeySpec("v1"));
    console.log(DATABASE_URL ? "Connecting to DATABASE_URL…" : `Opening the embedded database in ${SVC_DATA_DIR}…`);
    const db = await resolveDatabase();
    try {
      const { createdAdmin, applied } = await prepare(db);
      if (applied.length > 0) console.log(`  Applied ${applied.length} migration(s).`);
      if (!values.dev && !existsSync(path.join(process.env.NEXT_DIST_DIR ?? ".next", "BUILD_ID"))) await firstBuild();
      console.log(
        `\nsvc is starting on ${db.embedded ? "the embedded database" : "DATABASE_URL"} (Node.js ${process.versions.node}).`,
      );
      console.log(`  Console sign-in: http://localhost:${PORT}/console/sign-in`);
      console.log(`  API reference:   http://localhost:${PORT}/api/docs`);
      printAdmin(createdAdmin);
      if (!createdAdmin)
        console.log("  Sign in with your sys_admin account (npm run svc -- create-admin makes another).");
      const childEnv = {
        ...process.env,
        DATABASE_URL: db.url,
        ...(db.embedded ? { DATABASE_POOL_MAX: "8", DATABASE_PREPARED_STATEMENTS: "0" } : {}),
      };
      await run(
        process.execPath,
        ["scripts/server.mjs", ...(values.dev ? ["--dev"] : []), "-p", String(PORT)],
        childEnv,
        true,
      );
    } finally {
      await db.release();
    }
  },
};

/** Validates CLI input with the same schema as the API, reporting fields in one line. */
function validated<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new UsageError(result.error.issues.map((i) => `${i.path.join(".") || "input"}: ${i.message}`).join("; "));
}

/** A secret for zero-setup runs (session signing, encryption keys), made once and kept in the data folder. */
async function persistedSecret(dataDir: string, name: string, make: () => string): Promise<string> {
  const file = path.join(dataDir, name);
  try {
    return (await readFile(file, "utf8")).trim();
  } catch {
    const secret = make();
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(file, secret, { mode: 0o600, flag: "wx" });
    return secret;
  }
}

/**
 * The production build a first start makes, once: later starts reuse it. Without the build's type
 * check (a third of its time), which `npm test` runs (tsc) and `npm run build` keeps.
 */
async function firstBuild() {
  console.log("First start: building the app once (next build, a few minutes); later starts reuse the build.");
  console.log("  Types are not checked by this build: `npm test` checks them.");
  const started = performance.now();
  await run(process.execPath, ["node_modules/next/dist/bin/next", "build"], {
    ...process.env,
    SVC_BUILD_TYPE_CHECK: process.env.SVC_BUILD_TYPE_CHECK ?? "0",
  });
  console.log(`Built in ${Math.round((performance.now() - started) / 1000)} s.`);
}

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
