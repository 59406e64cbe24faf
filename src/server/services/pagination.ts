import "server-only";
import { validationFailed } from "@/server/errors";

// Every list answers one page at a time: `{ data, next_cursor }`, at most `limit` items, in the
// order of one unique column. The cursor is opaque to clients: the last value of the page,
// base64url-encoded JSON. A list ordered by a time-ordered UUIDv7 id is newest first.

export interface PageQuery {
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

type CursorValue = string | number;

export interface PageOrder<K extends string, V extends CursorValue> {
  /** The unique column the list is ordered by. */
  column: K;
  direction: "asc" | "desc";
  /** What a cursor of this list may hold. */
  accepts: (value: unknown) => value is V;
}

/** What `fetch` adds to its query: the rows after the cursor, in order, one more than the page. */
export interface PageWindow<K extends string, V extends CursorValue> {
  after: { [P in K]?: { lt: V } | { gt: V } };
  orderBy: { [P in K]: "asc" | "desc" };
  take: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const isUuid = (value: unknown): value is string => typeof value === "string" && UUID.test(value);
const isRowId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
const isKey = (value: unknown): value is string => typeof value === "string" && value.length > 0 && value.length <= 255;

export const newestFirst: PageOrder<"id", string> = { column: "id", direction: "desc", accepts: isUuid };
export const byUuidDesc = <K extends string>(column: K): PageOrder<K, string> => ({
  column,
  direction: "desc",
  accepts: isUuid,
});
export const oldestFirst: PageOrder<"id", string> = { column: "id", direction: "asc", accepts: isUuid };
export const byRowId: PageOrder<"id", number> = { column: "id", direction: "asc", accepts: isRowId };
export const byKey: PageOrder<"key", string> = { column: "key", direction: "asc", accepts: isKey };

/**
 * The value a cursor holds, if it is one `accepts` takes; else 400. Lists ordered by more than one
 * column (read by a statement of their own) use this and `encodeCursor` directly.
 */
export function decodeCursor<V>(cursor: string | undefined, accepts: (value: unknown) => value is V): V | undefined {
  if (cursor === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    value = undefined;
  }
  if (!accepts(value))
    throw validationFailed([{ path: "cursor", message: "is not a cursor from this list" }], "The cursor is not valid.");
  return value;
}

export const encodeCursor = (value: unknown): string =>
  Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

/**
 * One page of a list: `fetch` reads the rows of the window, `toItem` shapes each where the answer's
 * shape is not the row's (the answer's encode drops the columns it does not declare).
 */
export async function paginate<K extends string, V extends CursorValue, Row extends { [P in K]: V }, Item = Row>(
  query: PageQuery,
  order: PageOrder<K, V>,
  fetch: (window: PageWindow<K, V>) => Promise<Row[]>,
  toItem?: (row: Row) => Item,
): Promise<Page<Item>> {
  const cursor = decodeCursor(query.cursor, order.accepts);
  const after =
    cursor === undefined ? {} : { [order.column]: order.direction === "desc" ? { lt: cursor } : { gt: cursor } };
  const rows = await fetch({
    after: after as PageWindow<K, V>["after"],
    orderBy: { [order.column]: order.direction } as PageWindow<K, V>["orderBy"],
    take: query.limit + 1,
  });
  const data = rows.slice(0, query.limit);
  const last = data[data.length - 1];
  return {
    data: toItem ? data.map(toItem) : (data as unknown as Item[]),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last[order.column]) : null,
  };
}
