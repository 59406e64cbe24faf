import "server-only";
import { Prisma } from "@/generated/prisma/client";
import type { DataLayer } from "@/server/db/data-layer";
import type { PageWindow } from "@/server/services/pagination";

// The `q` search of lists with many rows (organizations, users): a case-insensitive match in a few
// columns, found through a trigram index rather than by reading the whole table. Three characters or
// more match anywhere in a value; one or two, which make no trigram, match where a value or one of
// its words begins. See docs/decisions/012-trigram-search.md.

const TRIGRAM = 3;

// Each searched table stores, for every row, its searched columns lower-cased and joined, each
// after this separator (a control character no one types): `search_typed` as they are,
// `search_written` as svc_search_text writes them, the latter under a trigram index (migration
// 20261203000000_search_columns). A search is then a LIKE on one stored value, not a function
// call and a case-insensitive match per column on every row it reads.
const SEPARATOR = "\u001f";

// LIKE patterns take `%`, `_` and `\` as wildcards and escape: the text typed is matched as it is.
const literal = (q: string) => q.replace(/[\\%_]/g, "\\$&");

/** Prisma's condition for a value holding `q` as typed (any case): for the short lists' searches. */
export const containing = (q: string) => ({ contains: literal(q), mode: "insensitive" as const });

/**
 * The LIKE patterns (before lower-casing) of a value holding `q` in the joined text: three
 * characters or more anywhere; one or two where a column's value begins (after the separator) or
 * where a word of it does (after a space).
 */
const joinedPatterns = (q: string) =>
  q.length >= TRIGRAM ? [`%${literal(q)}%`] : [`%${SEPARATOR}${literal(q)}%`, `% ${literal(q)}%`];

/**
 * The condition for a row matching `q`, as the trigram index can answer it. The index holds the
 * row's text as `svc_search_text` writes it (the marks joining the parts of names, emails and
 * domains as `x`, so that pg_trgm keeps them within a word) and is looked up with the pattern
 * written the same way (an escaped `_` becomes an escaped `x`: still the literal the value holds);
 * the rows it gives are then checked against `q` as typed. A value holding `q` holds it written so
 * too, so the two tests can be asked apart, each once per row.
 */
function indexedMatch(columns: readonly string[], q: string): Prisma.Sql {
  const lookups = joinedPatterns(q).map(
    (pattern) => Prisma.sql`search_written LIKE svc_search_text(lower(${pattern}))`,
  );
  return Prisma.sql`(${Prisma.join(lookups, " OR ")}) AND ${readMatch(columns, q)}`;
}

/**
 * The match as typed, for rows already read: a LIKE on the stored, lower-cased text, which a value
 * of one column alone can satisfy, since `q` (trimmed) holds no separator. Should it hold one, each
 * column is tested by itself, as the joined text would let `q` span two columns.
 */
function readMatch(columns: readonly string[], q: string): Prisma.Sql {
  if (!q.includes(SEPARATOR)) {
    const tests = joinedPatterns(q).map((pattern) => Prisma.sql`search_typed LIKE lower(${pattern})`);
    return Prisma.sql`(${Prisma.join(tests, " OR ")})`;
  }
  const pattern = q.length >= TRIGRAM ? `%${literal(q)}%` : `% ${literal(q)}%`;
  const tests = columns.map((name) => {
    const column = Prisma.raw(`"${name}"`);
    return q.length >= TRIGRAM
      ? Prisma.sql`${column} ILIKE ${pattern}`
      : Prisma.sql`(' ' || ${column}) ILIKE ${pattern}`;
  });
  return Prisma.sql`(${Prisma.join(tests, " OR ")})`;
}

/**
 * A searched list: its table, the columns `q` matches (those its stored search text joins, in that
 * order), the columns a page's rows hold.
 */
export interface SearchedTable {
  table: "organizations" | "users";
  columns: readonly string[];
  select: readonly string[];
}

// How many of the newest rows (after the cursor) are read in the list's order before the trigram
// index is asked instead, per row of the page: a page of 50 reads the newest 1,020 at most, so
// the order finds the page when more than 1 row in 20 matches there.
const NEWEST_ROWS_PER_ITEM = 20;

/**
 * One page of a `q` search, newest first (by id, a UUIDv7), after the window's cursor; `filters`
 * are the list's other conditions (soft deletion included: raw SQL does not pass the data layer's).
 *
 * Two ways find a page, and which is quick depends on where the matches lie, which no estimate
 * knows: the list's order read backwards finds a page at once when matches are common among the
 * newest rows, and reads the whole table when they are old or rare (acme-77 among 200,000
 * acme-N, its newest match 122,000 rows back); the trigram index finds every match, however old,
 * at a cost that grows with their number. So the newest rows are read first, a bounded number of
 * them; when those do not fill the page, the index gives every match and the page is the newest of
 * them, sorted out as they are read (a subquery with OFFSET 0, planned apart from the order asked
 * of it, so that the planner cannot turn the lookup back into a walk of the order).
 * The statement holds a pattern, so it is sent unnamed and planned with its values (client.ts).
 */
export async function searchNewestFirst<Row>(
  db: Pick<DataLayer, "$queryRaw">,
  searched: SearchedTable,
  q: string,
  filters: Prisma.Sql[],
  window: PageWindow<"id", string>,
): Promise<Row[]> {
  return db.$queryRaw<Row[]>(searchStatement(searched, q, filters, window));
}

/** The statement of searchNewestFirst. */
function searchStatement(
  searched: SearchedTable,
  q: string,
  filters: Prisma.Sql[],
  window: PageWindow<"id", string>,
): Prisma.Sql {
  const cursor = window.after.id && "lt" in window.after.id ? window.after.id.lt : undefined;
  const where = Prisma.join(
    [...filters, ...(cursor === undefined ? [] : [Prisma.sql`id < ${cursor}::uuid`]), Prisma.sql`true`],
    " AND ",
  );
  const table = Prisma.raw(`"${searched.table}"`);
  const take = window.take;
  const columns = Prisma.raw(["id", "search_typed", ...searched.columns].map((c) => `"${c}"`).join(", "));
  const select = Prisma.raw(searched.select.map((c) => `t."${c}"`).join(", "));
  return Prisma.sql`
    WITH newest AS MATERIALIZED (
      SELECT id FROM (SELECT ${columns} FROM ${table} WHERE ${where} ORDER BY id DESC LIMIT ${take * NEWEST_ROWS_PER_ITEM}) w
      WHERE ${readMatch(searched.columns, q)}
      ORDER BY id DESC LIMIT ${take}
    ), every_match AS MATERIALIZED (
      SELECT id FROM (
        SELECT id FROM ${table}
        WHERE ${indexedMatch(searched.columns, q)} AND ${where} AND (SELECT count(*) FROM newest) < ${take}
        OFFSET 0
      ) m
      ORDER BY id DESC LIMIT ${take}
    ), page AS (
      SELECT id FROM newest WHERE (SELECT count(*) FROM newest) = ${take}
      UNION ALL
      SELECT id FROM every_match
      ORDER BY id DESC LIMIT ${take}
    )
    SELECT ${select} FROM ${table} t JOIN page ON page.id = t.id ORDER BY t.id DESC`;
}
