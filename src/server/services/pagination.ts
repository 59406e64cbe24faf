import { DomainError } from "@/server/errors";

// Opaque cursors for lists ordered by a time-ordered UUIDv7 id (newest first): the cursor is the
// last id of the page, base64url-encoded.

export const encodeCursor = (id: string): string => Buffer.from(id, "utf8").toString("base64url");

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id)) {
    throw new DomainError("validation_failed", "The cursor is not valid.", { errors: [{ path: "cursor", message: "is not a cursor from this list" }] });
  }
  return id;
}

/** Splits a fetched page of limit + 1 rows into the page and the next cursor. */
export function page<T extends { id: string }>(rows: T[], limit: number): { data: T[]; next_cursor: string | null } {
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return { data, next_cursor: rows.length > limit && last ? encodeCursor(last.id) : null };
}
