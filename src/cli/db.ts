import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readFile, rename, unlink } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveDatabase } from "@/server/db/database";
import { moveDatabase, restoreDump } from "@/server/db/transfer";
import { env } from "@/server/env";
import { UsageError } from "./errors";

// `npm run svc -- db <dump|restore|move>`: off the embedded database, onto PostgreSQL. A dump holds
// every password hash and key: it goes to a new file of mode 0600, never through a symlink nor
// into a file that exists (which would keep its mode); --force replaces one by a rename.

export const DB_USAGE = `  db dump [--out FILE [--force]]            a consistent plain-SQL dump (the embedded database too, while the app
                                            serves it); to stdout without --out, else to a new FILE (mode 600);
                                            --force replaces an existing FILE (a symlink itself, not its target)
  db restore FILE                           restore a dump into the empty database DATABASE_URL names
  db move --to POSTGRESQL_URL               copy this database (the embedded one) into an empty PostgreSQL 14+:
                                            migrations, every row, row counts checked; this one stays as it is`;

/** A new file (never an existing one, nor through a symlink), mode 0600, for writing. */
const createNew = (file: string) =>
  open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);

/** A one-line refusal for a file the dump cannot be written to. */
function cannotWrite(file: string, error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EEXIST" || code === "ELOOP")
    throw new UsageError(`${file} exists (or is a symlink): db dump writes a new file; --force replaces it.`);
  if (code === "ENOENT") throw new UsageError(`Cannot write ${file}: its folder does not exist.`);
  if (code === "EISDIR") throw new UsageError(`Cannot write ${file}: it is a folder.`);
  throw new UsageError(`Cannot write ${file} (${code ?? (error as Error).message}).`);
}

/**
 * Writes `text` to `file`, a new file; with `force`, to a new file beside it that then replaces it
 * (rename replaces a symlink itself, and the file is whole or not there at all).
 */
async function writeDump(file: string, text: string, force: boolean): Promise<void> {
  const target = force
    ? path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`)
    : file;
  const handle = await createNew(target).catch((error: unknown) => cannotWrite(force ? file : target, error));
  try {
    await handle.writeFile(text);
    await handle.sync();
    await handle.close();
    if (force) await rename(target, file).catch((error: unknown) => cannotWrite(file, error));
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(target).catch(() => undefined);
    throw error;
  }
}

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
    options: { out: { type: "string" }, to: { type: "string" }, force: { type: "boolean", default: false } },
  });
  if (sub === "dump") {
    if (values.force && !values.out) throw new UsageError("--force goes with --out FILE");
    // Refused before the dump is taken; creating the file (O_EXCL) is what holds, though.
    if (
      values.out &&
      !values.force &&
      (await lstat(values.out).then(
        () => true,
        () => false,
      ))
    )
      cannotWrite(values.out, Object.assign(new Error("exists"), { code: "EEXIST" }));
    const db = await resolveDatabase();
    try {
      const dump = await db.dump();
      if (values.out) {
        await writeDump(values.out, dump, values.force);
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
