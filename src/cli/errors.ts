import { mapDatabaseError } from "@/server/db/errors";

/** A command used wrongly: exit code 2. */
export class UsageError extends Error {}

/** One line an operator can act on, never a stack trace. */
export function describeError(error: unknown): string {
  const e = error as { code?: string; message?: string; address?: string; port?: number };
  if (e?.code === "ECONNREFUSED")
    return `Cannot reach PostgreSQL at ${e.address ?? "?"}:${e.port ?? "?"} (connection refused).`;
  if (e?.code === "ENOTFOUND") return `Cannot resolve the database host (${e.message}).`;
  if (e?.code === "3D000") return `The database does not exist: ${e.message}.`;
  if (e?.code === "28P01" || e?.code === "28000") return `PostgreSQL refused the credentials: ${e.message}.`;
  const domain = mapDatabaseError(error);
  if (domain) return domain.message;
  return (e?.message ?? String(error)).split("\n")[0] ?? "Unknown error.";
}
