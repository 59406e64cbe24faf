import "server-only";
import { spawn } from "node:child_process";
import type { DumpOptions } from "./embedded-dump";
import { dumpArguments } from "./embedded-dump";

// A dump of a real PostgreSQL server by its own pg_dump (plain SQL of INSERTs, restorable by
// `svc db restore`): consistent, since pg_dump reads in one repeatable-read transaction.

class DumpError extends Error {}

/** The server's pg_dump run on `url`; its first error line when it fails. */
export function pgDump(url: string, options: DumpOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    // The password goes by the environment, not the command line (which other users can read).
    const target = new URL(url);
    const password = decodeURIComponent(target.password);
    target.password = "";
    const child = spawn("pg_dump", [...dumpArguments(options), "--dbname", target.toString()], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PGCONNECT_TIMEOUT: "5", ...(password ? { PGPASSWORD: password } : {}) },
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", (error: NodeJS.ErrnoException) =>
      reject(
        new DumpError(
          error.code === "ENOENT"
            ? "pg_dump is not installed: install PostgreSQL's client programs (the version of the server or newer)."
            : error.message,
        ),
      ),
    );
    child.on("exit", (code) => {
      if (code === 0) return resolve(Buffer.concat(out).toString("utf8"));
      const line = err.split("\n").find((l) => /error|fatal/i.test(l)) ?? err.split("\n")[0] ?? "";
      reject(new DumpError(`pg_dump failed: ${line.replace(/^pg_dump: (error: )?/, "").trim() || `exit ${code}`}`));
    });
  });
}
