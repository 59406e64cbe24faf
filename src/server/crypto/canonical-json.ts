import "server-only";
import { createHash } from "node:crypto";

// RFC 8785 (JSON Canonicalization Scheme): object members sorted by the UTF-16 code units of their
// names, no whitespace, and ECMAScript number and string serialization — which is exactly what
// JSON.stringify produces for each primitive.

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value))
      throw new TypeError("JSON cannot hold a non-finite number");
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** First 16 hex characters of SHA-256 over the canonical JSON: the instance's config_hash. */
export const configHash = (config: unknown): string =>
  createHash("sha256").update(canonicalJson(config)).digest("hex").slice(0, 16);
