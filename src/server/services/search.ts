import "server-only";

// The `q` search of lists with many rows (organizations, users): a case-insensitive match in any
// of a few columns, each with a trigram index (pg_trgm), so a search reads the rows that can match
// rather than the whole table. A search of three characters or more matches anywhere in a value.
// One or two characters make no trigram to look up, and a substring of them would read every row:
// they match where a value, or a word of it (after a space), begins, which the same indexes find
// (their trigrams mark where words begin). As the user types, the results narrow the same way.

const TRIGRAM = 3;

type TextMatch = { contains: string; mode: "insensitive" } | { startsWith: string; mode: "insensitive" };

// Prisma puts the text into a LIKE pattern as it is: `%` and `_` would be wildcards.
const literal = (q: string) => q.replace(/[\\%_]/g, "\\$&");

/** Prisma's condition for a value holding `q` as typed (any case): for the short lists' searches. */
export const containing = (q: string) => ({ contains: literal(q), mode: "insensitive" as const });

/** Prisma's `where` for a search of `q` in any of `columns`. */
export function searchWhere<C extends string>(columns: readonly C[], q: string): { OR: Record<C, TextMatch>[] } {
  const match = (column: C, condition: TextMatch) => ({ [column]: condition }) as Record<C, TextMatch>;
  const text = literal(q);
  if (q.length >= TRIGRAM) return { OR: columns.map((c) => match(c, { contains: text, mode: "insensitive" })) };
  return {
    OR: columns.flatMap((c) => [
      match(c, { startsWith: text, mode: "insensitive" }),
      match(c, { contains: ` ${text}`, mode: "insensitive" }),
    ]),
  };
}
