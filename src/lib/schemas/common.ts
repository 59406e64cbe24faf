import { z } from "zod";

// Building blocks shared by every resource's schemas (browser-safe: the console validates with
// the same schemas the server enforces).

const plural = (count: number | bigint, one: string, many: string) => `${count} ${Number(count) === 1 ? one : many}`;

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  object: "an object",
  array: "an array",
  date: "a date",
};

const FORMAT_NAMES: Record<string, string> = {
  url: "a URL",
  email: "an email address",
  uuid: "a UUID",
  datetime: "an ISO 8601 date-time with an offset, like 2026-01-31T12:00:00Z",
  date: "an ISO 8601 date, like 2026-01-31",
};

/**
 * zod's messages in the words every door uses (REST problem details, tRPC error data and the
 * console's forms): a phrase that follows the field's name, like "must be at least 12 characters".
 * Loaded with this module, which every schema imports; a schema's own `error` still wins.
 */
function readableIssue(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case "too_small":
      if (issue.origin === "string")
        return Number(issue.minimum) <= 1
          ? "is required"
          : `must be at least ${plural(issue.minimum, "character", "characters")}`;
      if (issue.origin === "array" || issue.origin === "set")
        return `must list at least ${plural(issue.minimum, "item", "items")}`;
      return `must be ${issue.inclusive ? "at least" : "greater than"} ${issue.minimum}`;
    case "too_big":
      if (issue.origin === "string") return `must be at most ${plural(issue.maximum, "character", "characters")}`;
      if (issue.origin === "array" || issue.origin === "set")
        return `must list at most ${plural(issue.maximum, "item", "items")}`;
      return `must be ${issue.inclusive ? "at most" : "less than"} ${issue.maximum}`;
    case "invalid_format":
      return FORMAT_NAMES[issue.format] ? `must be ${FORMAT_NAMES[issue.format]}` : "is not in the expected format";
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "unrecognized_keys":
      return "is not a known field";
    case "invalid_union":
      return "does not match any accepted form";
    case "invalid_key":
      // The issue's path ends with the field's name, so say it is the name that is wrong.
      return issue.issues[0] ? `its name ${issue.issues[0].message}` : "is not an accepted field name";
    default:
      return undefined;
  }
}

// In the browser zod would probe with `new Function` whether it may compile its object parsers; the
// console's Content-Security-Policy forbids eval, so the probe fails and the browser reports a policy
// violation on every page that loads a schema. The browser parses without compiling either way; the
// server, under no such policy, keeps the compiled parsers.
z.config({ customError: readableIssue, jitless: typeof window !== "undefined" });

// Bounds. Every string, list and integer a request or an answer holds is bounded, and the OpenAPI
// document states each bound (maxLength, maxItems, minimum and maximum) from these same schemas.
// Integers are bounded by zod itself (to the exact range of a JSON number, ±(2^53 − 1)); ids are
// UUIDs, 36 characters; strings and lists take their bound from the helpers below.

/**
 * The spec's length classes of string columns, and the bound of free text (a text column, or JSON
 * carried as a string) where no tighter one is decided.
 */
export const LENGTH = { SHORT: 50, STANDARD: 255, LONG: 512, VERY_LONG: 1000, TEXT: 65_536 } as const;
/** Descriptions and biographies: text columns, held to less than free text. */
export const DESCRIPTION_LENGTH = 10_000;

/** A string of at most `max` characters: by default a column of the spec's STANDARD class. */
export const text = (max: number = LENGTH.STANDARD) => z.string().max(max);

/** A list's `q`: trimmed, never empty, and saying what it matches. */
export const searchTerm = (matches: string) => text().trim().min(1).optional().describe(matches);

/** The most items a list holds, unless it says otherwise: a page's worth. */
const MAX_ITEMS = 100;
/** A list of at most `max` items. */
export const list = <T extends z.ZodType>(item: T, max: number = MAX_ITEMS) => z.array(item).max(max);

/** A count of things: a whole number from 0. */
export const count = z.number().int().min(0);

export const id = z.uuid({ error: "must be a UUID" }).meta({ examples: ["0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70"] });
/** A moment as a request sends it, and as the wire carries it: an ISO 8601 string. */
export const timestamp = z.iso
  .datetime({ offset: true })
  .max(LENGTH.SHORT)
  .meta({ examples: ["2026-01-15T09:30:00.000Z"] });
/**
 * A moment in an answer: a Date where the server holds it (a handler returns the database's Date),
 * the ISO 8601 string of `timestamp` on the wire. The answer's encode (operations/invoke.ts) turns
 * one into the other, so no service formats a moment itself; the schema's input type is the wire's.
 */
export const moment = z.codec(timestamp, z.date(), {
  decode: (iso) => new Date(iso),
  encode: (date) => date.toISOString(),
});

/** The most items a page holds. */
const MAX_PAGE_SIZE = MAX_ITEMS;
// The longest cursor a list gives back is a setting key of 255 characters, as base64url JSON: 343.
const CURSOR_LENGTH = LENGTH.LONG;

const limit = z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(50).describe("How many items a page holds.");
const cursor = z
  .string()
  .min(1)
  .max(CURSOR_LENGTH)
  .optional()
  .describe("The `next_cursor` of the previous page; omit it for the first page.");

/** `true` / `false` in a query string (the console sends the same strings). */
export const booleanQuery = z.stringbool({ truthy: ["true"], falsy: ["false"] }).meta({ enum: ["true", "false"] });

/** The moments the API reference's examples show. */
export const EXAMPLE_TIMESTAMPS = { created_at: "2026-01-15T09:30:00.000Z", updated_at: "2026-01-15T09:30:00.000Z" };
export const EXAMPLE_LIVE_RECORD = { is_deleted: false, ...EXAMPLE_TIMESTAMPS };

/** When a record was created and last changed. */
export const timestamps = { created_at: moment, updated_at: moment };
/** What every soft-deletable record answers besides its own fields. */
export const softDeletedRecord = { is_deleted: z.boolean(), ...timestamps };

/** A list's page: how many, and where the previous page ended. */
export const pageQuery = z.strictObject({ limit, cursor });

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: list(item, MAX_PAGE_SIZE),
    next_cursor: text(CURSOR_LENGTH)
      .nullable()
      .describe("Pass it back as `cursor` for the next page; null on the last page."),
  });

/** sys_admins may ask for soft-deleted records too. */
export const includeDeleted = booleanQuery.optional().describe("sys_admins only: soft-deleted records too.");
export const includeDeletedQuery = z.strictObject({ include_deleted: includeDeleted });
