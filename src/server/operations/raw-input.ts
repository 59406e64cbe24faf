import "server-only";
import type { FieldError } from "@/server/errors";

// What any input must be before a schema looks at it, for REST and tRPC alike: nested at most 64
// levels (deeper overflows recursive code: validators, JSON.stringify, the database driver), no
// U+0000 in a string or field name (PostgreSQL refuses it) or lone UTF-16 surrogate (no encoding
// can store it), and no number beyond ±(2^53 − 1), past which numbers are no longer exact, so such
// values travel as strings.

export const MAX_INPUT_DEPTH = 64;

/** What makes a string unstorable ("U+0000", "a lone UTF-16 surrogate"), or undefined. */
const unstorable = (value: string): string | undefined =>
  value.includes("\u0000") ? "U+0000" : value.isWellFormed() ? undefined : "a lone UTF-16 surrogate";

const join = (path: string, key: string | number) => (path === "" ? String(key) : `${path}.${key}`);

/**
 * The problems of `value` as raw input. `root` names it in field paths ("" for a body, whose
 * fields are named alone, or "body" as a whole). Too deep a value is named by its outermost field,
 * anything else by its own path. At most `limit` problems.
 */
export function rawInputProblems(value: unknown, root: string, limit = 20): FieldError[] {
  const problems: FieldError[] = [];
  const visit = (node: unknown, path: string, depth: number, field: string): void => {
    if (typeof node === "string") {
      const found = unstorable(node);
      if (found) problems.push({ path: path || "body", message: `must not contain ${found}` });
    } else if (typeof node === "number") {
      if (Math.abs(node) > Number.MAX_SAFE_INTEGER)
        problems.push({ path: path || "body", message: "is beyond ±9007199254740991 (send it as a string)" });
    } else if (typeof node === "object" && node !== null) {
      if (depth > MAX_INPUT_DEPTH) {
        problems.push({ path: field || "body", message: `is nested deeper than ${MAX_INPUT_DEPTH} levels` });
        return;
      }
      const entries: Iterable<[string | number, unknown]> = Array.isArray(node) ? node.entries() : Object.entries(node);
      for (const [key, item] of entries) {
        if (problems.length >= limit) return;
        const found = typeof key === "string" ? unstorable(key) : undefined;
        if (found) problems.push({ path: path || "body", message: `has a field name containing ${found}` });
        else visit(item, join(path, key), depth + 1, field || join(path, key));
      }
    }
  };
  visit(value, root, 1, "");
  return problems.slice(0, limit);
}
