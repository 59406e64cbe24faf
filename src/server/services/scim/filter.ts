import "server-only";
import { parse, type Filter } from "scim2-parse-filter";
import type { Prisma } from "@/generated/prisma/client";
import { invalidFilter } from "./errors";

// A SCIM filter (RFC 7644 §3.4.2.2) as a database query: the kept parser reads the grammar (every
// operator, and/or/not, parentheses, value paths such as `emails[type eq "work"]`), and this module
// says what each attribute of ours is in the tables, so a filtered page is one indexed query and not
// a scan of every resource in memory. An attribute we do not hold is a 400 `invalidFilter`.

type Comparison = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "ge" | "lt" | "le" | "pr";
type Value = boolean | null | number | string;

/** What a filter compares on one attribute, as a where clause; `undefined` value for `pr`. */
type AttributeQuery<W> = (op: Comparison, value: Value | undefined) => W;

export interface FilterTarget<W> {
  /** Attributes by their lower-case path (`username`, `name.familyname`, `meta.lastmodified`). */
  attributes: Record<string, AttributeQuery<W>>;
  /** Value paths (`emails[…]`, `members[…]`): their sub-attributes, by lower-case name. */
  complex: Record<string, Record<string, AttributeQuery<W>>>;
  and: (clauses: W[]) => W;
  or: (clauses: W[]) => W;
  not: (clause: W) => W;
}

const MAX_FILTER_LENGTH = 2048;
const MAX_CLAUSES = 50;

/** The parsed filter, or 400 `invalidFilter` saying why. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw invalidFilter(`The filter is over ${MAX_FILTER_LENGTH} characters.`);
  try {
    return parse(text);
  } catch (error) {
    throw invalidFilter(`The filter could not be read: ${(error as Error).message}`);
  }
}

export function filterToWhere<W>(filter: Filter, target: FilterTarget<W>): W {
  let clauses = 0;
  const attribute = (path: string, within: Record<string, AttributeQuery<W>>) => {
    const query = within[path.toLowerCase()];
    if (!query) throw invalidFilter(`Filtering on "${path}" is not supported.`);
    return query;
  };
  const walk = (node: Filter, within: Record<string, AttributeQuery<W>>): W => {
    if (++clauses > MAX_CLAUSES) throw invalidFilter(`The filter has over ${MAX_CLAUSES} clauses.`);
    switch (node.op) {
      case "and":
        return target.and(node.filters.map((each) => walk(each, within)));
      case "or":
        return target.or(node.filters.map((each) => walk(each, within)));
      case "not":
        return target.not(walk(node.filter, within));
      case "[]": {
        const subAttributes = target.complex[node.attrPath.toLowerCase()];
        if (!subAttributes || within !== target.attributes)
          throw invalidFilter(`Filtering on "${node.attrPath}[…]" is not supported.`);
        return walk(node.valFilter, subAttributes);
      }
      case "pr":
        return attribute(node.attrPath, within)("pr", undefined);
      default:
        return attribute(node.attrPath, within)(node.op, node.compValue);
    }
  };
  return walk(filter, target.attributes);
}

// ---------------------------------------------------------------------------------------------
// Columns

/** A string column: case-insensitive unless `caseExact`, nullable columns answering `ne` and `pr` as SCIM says. */
export function stringColumn<W>(
  column: string,
  options: { caseExact?: boolean; nullable?: boolean } = {},
): AttributeQuery<W> {
  const mode = options.caseExact ? {} : { mode: "insensitive" as const };
  const where = (condition: unknown) => ({ [column]: condition }) as W;
  return (op, value) => {
    if (op === "pr") return where({ not: null });
    if (typeof value !== "string") {
      if (value === null && (op === "eq" || op === "ne")) return where(op === "eq" ? null : { not: null });
      throw invalidFilter(`"${column}" is compared with a string.`);
    }
    // LIKE's wildcards and escape in a value stand for themselves.
    const literal = value.replace(/[\\%_]/g, (char) => `\\${char}`);
    switch (op) {
      case "eq":
        return where({ equals: value, ...mode });
      case "ne": {
        const other = { NOT: where({ equals: value, ...mode }) };
        return (options.nullable ? { OR: [other, where(null)] } : other) as W;
      }
      case "co":
        return where({ contains: literal, ...mode });
      case "sw":
        return where({ startsWith: literal, ...mode });
      case "ew":
        return where({ endsWith: literal, ...mode });
      default:
        return where({ [op === "ge" ? "gte" : op === "le" ? "lte" : op]: value, ...mode });
    }
  };
}

/** A UUID column: equality only (an id that is no UUID matches nothing). */
export function idColumn<W>(column: string): AttributeQuery<W> {
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  return (op, value) => {
    if (op === "pr") return { [column]: { not: null } } as W;
    if ((op !== "eq" && op !== "ne") || typeof value !== "string")
      throw invalidFilter(`"${column}" takes eq, ne or pr with a string.`);
    const matching = UUID.test(value) ? { [column]: value.toLowerCase() } : { [column]: { in: [] } };
    return (op === "eq" ? matching : { NOT: matching }) as W;
  };
}

export function booleanColumn<W>(column: string): AttributeQuery<W> {
  return (op, value) => {
    if (op === "pr") return { [column]: { not: null } } as W;
    const bool = typeof value === "string" ? value.toLowerCase() : value;
    if ((op !== "eq" && op !== "ne") || (bool !== true && bool !== false && bool !== "true" && bool !== "false"))
      throw invalidFilter(`"${column}" takes eq, ne or pr with true or false.`);
    const wanted = bool === true || bool === "true";
    return { [column]: op === "eq" ? wanted : !wanted } as W;
  };
}

/**
 * A moment column (meta.created, meta.lastModified): compared with an ISO 8601 date-time. The
 * resource shows its moments to the millisecond while the database keeps microseconds, so a
 * moment stands for its whole millisecond: `eq` the lastModified a directory was shown matches it,
 * and `gt` it does not.
 */
export function momentColumn<W>(column: string): AttributeQuery<W> {
  return (op, value) => {
    if (op === "pr") return { [column]: { not: null } } as W;
    const moment = typeof value === "string" ? new Date(value) : undefined;
    if (!moment || Number.isNaN(moment.getTime()) || op === "co" || op === "sw" || op === "ew")
      throw invalidFilter(`"${column}" is compared (eq ne gt ge lt le) with a date-time.`);
    const next = new Date(moment.getTime() + 1);
    const within = { [column]: { gte: moment, lt: next } };
    if (op === "eq") return within as W;
    if (op === "ne") return { NOT: within } as W;
    const condition = { gt: { gte: next }, ge: { gte: moment }, lt: { lt: moment }, le: { lt: next } }[op];
    return { [column]: condition } as W;
  };
}

/** An attribute that always holds `constant` where `present` holds (an email's type "work"). */
export function constantWhere<W>(constant: string | boolean, present: W, absent: W): AttributeQuery<W> {
  return (op, value) => {
    if (op === "pr") return present;
    const holds =
      typeof constant === "string" && typeof value === "string"
        ? { eq: constant.toLowerCase() === value.toLowerCase(), ne: constant.toLowerCase() !== value.toLowerCase() }[
            op as "eq" | "ne"
          ]
        : typeof constant === "boolean"
          ? {
              eq: value === constant || value === String(constant),
              ne: value !== constant && value !== String(constant),
            }[op as "eq" | "ne"]
          : undefined;
    if (holds === undefined) throw invalidFilter(`Only eq, ne and pr compare this attribute.`);
    return holds ? present : absent;
  };
}

export const prismaLogic = <W extends { AND?: unknown; OR?: unknown; NOT?: unknown }>() => ({
  and: (clauses: W[]) => ({ AND: clauses }) as W,
  or: (clauses: W[]) => ({ OR: clauses }) as W,
  not: (clause: W) => ({ NOT: clause }) as W,
});

export type ScimUserWhere = Prisma.ScimUserWhereInput;
export type ScimGroupWhere = Prisma.ScimGroupWhereInput;
