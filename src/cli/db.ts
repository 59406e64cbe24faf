import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveDatabase } from "@/server/db/database";
import { moveDatabase, restoreDump } from "@/server/db/transfer";
import { env } from "@/server/env";
import { UsageError } from "./errors";

// `npm run svc -- db <dump|restore|move>`: off the embedded database, onto PostgreSQL.

export const DB_USAGE = `  db dump [--out FILE]                      a consistent plain-SQL dump (the embedded database too, while the app
                                            serves it); to stdout without --out
  db restore FILE                           restore a dump into the empty database DATABASE_URL names
  db move --to POSTGRESQL_URL               copy this database (the embedded one) into an empty PostgreSQL 14+:
                                            migrations, every row, row counts checked; this one stays as it is`;

/** The URL with its password hidden, for printing. */
function shown(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = "****";
  return parsed.toString();
}

export async function dbCommand(args: string[]): Promise<void> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { out: { type: "string" }, to: { type: "string" } },
  });
  if (sub === "dump") {
    const db = await resolveDatabase();
    try {
      const dump = await db.dump();
      if (values.out) {
        await writeFile(values.out, dump, { mode: 0o600 });
        console.error(`Dumped ${db.embedded ? "the embedded database" : "the database"} to ${values.out}.`);
      } else process.stdout.write(dump);
    } finally {
      await db.release();
    }
  } else if (sub === "restore") {
    const file = positionals[0];
    if (!file) throw new UsageError("db restore needs the dump's FILE");
    const { DATABASE_URL, DATABASE_DIRECT_URL } = env();
    const target = DATABASE_DIRECT_URL ?? DATABASE_URL;
    if (!target) throw new UsageError("db restore needs DATABASE_URL: the empty database to restore into");
    const sql = await readFile(file, "utf8").catch(() => {
      throw new UsageError(`Cannot read ${file}.`);
    });
    await restoreDump(target, sql);
    console.log(`Restored ${file} into ${shown(target)}.`);
  } else if (sub === "move") {
    if (!values.to) throw new UsageError("db move needs --to <postgresql-url>");
    let target: URL;
    try {
      target = new URL(values.to);
    } catch {
      throw new UsageError("--to must be a postgresql:// URL");
    }
    if (!/^postgres(ql)?:$/.test(target.protocol)) throw new UsageError("--to must be a postgresql:// URL");
    const db = await resolveDatabase();
    try {
      const { tables } = await moveDatabase({ url: db.url, dump: (options) => db.dump(options) }, values.to);
      const rows = Object.values(tables).reduce((sum, n) => sum + n, 0);
      const dataDir = path.resolve(env().SVC_DATA_DIR);
      console.log(
        [
          `Moved ${rows} rows in ${Object.keys(tables).length} tables into ${shown(values.to)}; each table's row count matches.`,
          `${db.embedded ? "The embedded database" : "The source"} stays as it was.`,
          "",
          "Start the app on it with:",
          `  DATABASE_URL=${shown(values.to)}   (the password as you gave it)`,
          `  AUTH_SECRET=<the contents of ${path.join(dataDir, "auth-secret")}>`,
          `  SVC_ENCRYPTION_KEYS=<the contents of ${path.join(dataDir, "encryption-keys")}>`,
          "The last two are needed as they are: without them sessions end and provider keys cannot be decrypted.",
        ].join("\n"),
      );
    } finally {
      await db.release();
    }
  } else {
    throw new UsageError("db needs one of: dump, restore, move");
  }
}
