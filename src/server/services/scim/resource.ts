import "server-only";
import { SCIM_BASE_PATH, SCIM_MAX_COUNT, SCIM_SCHEMAS } from "@/lib/scim";
import type { DataLayer } from "@/server/db/data-layer";
import type { RequestFacts } from "@/server/http/client";
import { ScimError } from "./errors";

// What every SCIM resource and list shares: `meta` with its weak ETag, `If-Match`, the list
// response with `startIndex`/`count`, and `attributes`/`excludedAttributes` (RFC 7644 §3.4.2.5).

interface ScimMeta {
  resourceType: "User" | "Group";
  created: string;
  lastModified: string;
  location: string;
  version: string;
}

/** What a change of a resource carries besides its body: `If-Match`, the origin of its links, the request for the audit trail. */
export interface ScimCall {
  ifMatch: string | null;
  origin: string;
  request: RequestFacts;
}

const etagOf = (version: number) => `W/"${version}"`;

export function metaOf(
  resourceType: "User" | "Group",
  row: { id: string; version: number; created_at: Date; updated_at: Date },
  origin: string,
): ScimMeta {
  return {
    resourceType,
    created: row.created_at.toISOString(),
    lastModified: row.updated_at.toISOString(),
    location: `${origin}${SCIM_BASE_PATH}/${resourceType}s/${row.id}`,
    version: etagOf(row.version),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Holds the resource's row until the change commits, taken before it is read: two changes sent
 * with the same If-Match then run one after the other, and the second meets the new version.
 */
export async function lockResource(db: Pick<DataLayer, "$queryRaw">, kind: "User" | "Group", id: string) {
  if (!UUID.test(id)) return;
  if (kind === "User") await db.$queryRaw`SELECT id FROM scim_users WHERE id = ${id}::uuid FOR UPDATE`;
  else await db.$queryRaw`SELECT id FROM scim_groups WHERE id = ${id}::uuid FOR UPDATE`;
}

/** 412 when the request's `If-Match` names another version than the resource's (`*` matches any). */
export function requireMatch(ifMatch: string | null, version: number): void {
  if (ifMatch === null) return;
  const tags = ifMatch.split(",").map((tag) => tag.trim());
  if (tags.includes("*") || tags.some((tag) => tag.replace(/^W\//, "") === `"${version}"`)) return;
  throw new ScimError(412, `The resource is at version ${etagOf(version)}, not ${ifMatch}.`);
}

export interface ListParams {
  filter?: string;
  /** 1-based. */
  startIndex: number;
  count: number;
  attributes?: string[];
  excludedAttributes?: string[];
}

const attributeList = (value: string | null) =>
  value
    ?.split(",")
    .map((each) => each.trim())
    .filter(Boolean);

/** `startIndex`, `count`, `filter` and the projections of a list's query string. */
export function listParamsOf(query: URLSearchParams): ListParams {
  const integer = (name: string, fallback: number) => {
    const text = query.get(name);
    if (text === null || text === "") return fallback;
    if (!/^-?\d{1,9}$/.test(text)) throw new ScimError(400, `${name} must be an integer.`, "invalidValue");
    return Number(text);
  };
  return {
    filter: query.get("filter") ?? undefined,
    // Below 1 is read as 1, a negative count as 0 (RFC 7644 §3.4.2.4).
    startIndex: Math.max(1, integer("startIndex", 1)),
    count: Math.min(SCIM_MAX_COUNT, Math.max(0, integer("count", SCIM_MAX_COUNT))),
    ...projectionOf(query),
  };
}

export function projectionOf(query: URLSearchParams): Pick<ListParams, "attributes" | "excludedAttributes"> {
  return {
    attributes: attributeList(query.get("attributes")),
    excludedAttributes: attributeList(query.get("excludedAttributes")),
  };
}

/** Attribute names as a resource holds them, lower-cased, without a schema URN in front. */
const pathOf = (attribute: string) => {
  const urn = attribute.lastIndexOf(":");
  return attribute
    .slice(urn + 1)
    .toLowerCase()
    .split(".");
};

/** Returned whatever `attributes` and `excludedAttributes` say. */
const ALWAYS = new Set(["id", "schemas"]);

function pick(value: Record<string, unknown>, paths: string[][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, each] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if (ALWAYS.has(lower)) {
      out[key] = each;
      continue;
    }
    const wanted = paths.filter((path) => path[0] === lower);
    if (wanted.length === 0) continue;
    if (wanted.some((path) => path.length === 1)) out[key] = each;
    else if (each && typeof each === "object") {
      const rest = wanted.map((path) => path.slice(1));
      out[key] = Array.isArray(each)
        ? each.map((item) => (item && typeof item === "object" ? pick(item as Record<string, unknown>, rest) : item))
        : pick(each as Record<string, unknown>, rest);
    }
  }
  return out;
}

function omit(value: Record<string, unknown>, paths: string[][]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, each] of Object.entries(value)) {
    const lower = key.toLowerCase();
    const named = paths.filter((path) => path[0] === lower);
    if (!ALWAYS.has(lower) && named.some((path) => path.length === 1)) continue;
    if (named.length > 0 && each && typeof each === "object") {
      const rest = named.map((path) => path.slice(1));
      out[key] = Array.isArray(each)
        ? each.map((item) => (item && typeof item === "object" ? omit(item as Record<string, unknown>, rest) : item))
        : omit(each as Record<string, unknown>, rest);
    } else out[key] = each;
  }
  return out;
}

/** The resource as the request's `attributes` or `excludedAttributes` ask for it. */
export function projected(
  resource: Record<string, unknown>,
  { attributes, excludedAttributes }: Pick<ListParams, "attributes" | "excludedAttributes">,
): Record<string, unknown> {
  if (attributes?.length) return pick(resource, attributes.map(pathOf));
  if (excludedAttributes?.length) return omit(resource, excludedAttributes.map(pathOf));
  return resource;
}

export function listResponse(resources: Record<string, unknown>[], total: number, params: ListParams) {
  return {
    schemas: [SCIM_SCHEMAS.listResponse],
    totalResults: total,
    startIndex: params.startIndex,
    itemsPerPage: resources.length,
    Resources: resources.map((resource) => projected(resource, params)),
  };
}
