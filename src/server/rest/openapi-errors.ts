import "server-only";
import { ERROR_CODES, ERRORS, type ErrorCode } from "@/lib/errors";
import type { Access } from "@/server/operations/operation";
import type { RestOperation } from "./registry";

// Who may call an operation, and what it can fail with, derived from its declaration (access,
// errors, method, input): the OpenAPI document and the API reference page both read these.

export function accessText(access: Access): string {
  if (access === "public") return "No credentials needed.";
  if (access === "authenticated") return "Any valid API key or console session.";
  if (access === "session") return "A signed-in console session only: never an API key.";
  if (access === "metrics")
    return "The metrics token as `Authorization: Bearer` (`SVC_METRICS_TOKEN`); when none is set, a client on the app's own machine (a loopback address) and nobody else.";
  const holder = access.sysAdmin ? "a sys_admin holding " : "";
  const where = access.org
    ? " in the organization, or globally"
    : access.anyOrg
      ? " in any one organization, or globally"
      : "";
  return `Requires ${holder}\`${access.permission}\`${where}.`;
}

/** The codes a failed X-API-KEY or session answers with. */
export const AUTHENTICATION_ERRORS: readonly ErrorCode[] = [
  "unauthenticated",
  "invalid_api_key",
  "api_key_expired",
  "api_key_revoked",
];

/**
 * The rate limits a call of the operation counts against: its key's, when it reads credentials (a
 * key's call counts even where only a session may go), and the operation's own per client address,
 * when it declares one.
 */
export function rateLimitsOf(route: RestOperation): ("key" | "address")[] {
  const byKey = route.access !== "public" && route.access !== "metrics";
  return [...(byKey ? (["key"] as const) : []), ...(route.addressLimit ? (["address"] as const) : [])];
}

/** Whether a key's call of the operation spends one of its credits: any a key may be authorized for. */
export const spendsCredits = (route: RestOperation): boolean =>
  typeof route.access === "object" || route.access === "authenticated";

/** What any call of the operation can fail with, besides the errors it declares. */
function implicitErrors(route: RestOperation): ErrorCode[] {
  const readsBody = route.method !== "GET";
  const takesInput = readsBody || route.params !== undefined || route.query !== undefined;
  // Input and limits first: whoever may call the operation meets them.
  const common: ErrorCode[] = [
    // A route without a body still refuses one.
    ...(takesInput ? (["validation_failed"] as const) : []),
    ...(readsBody ? (["payload_too_large", "unsupported_media_type"] as const) : []),
    ...(rateLimitsOf(route).length > 0 ? (["rate_limited"] as const) : []),
  ];
  if (route.access === "public") return common;
  if (route.access === "metrics") return ["unauthenticated", "forbidden", ...common];
  const access = typeof route.access === "object" ? route.access : undefined;
  return [
    ...AUTHENTICATION_ERRORS,
    // A key used from outside the networks it is restricted to.
    "ip_not_allowed",
    // `include_deleted=true` is for sys_admins only.
    ...(access || route.access === "session" || route.query?.shape.include_deleted ? (["forbidden"] as const) : []),
    // Another tenant's organization looks missing (its lists answer 403 instead), and one that does
    // not exist is missing to a caller who may see every organization, lists included.
    ...(access?.org ? (["not_found"] as const) : []),
    ...common,
    // An address with too many failed authentications.
    "rate_limited",
    // A key with credits that has none left.
    ...(spendsCredits(route) ? (["credits_exhausted"] as const) : []),
    // The key or session is looked up in the database.
    "unavailable",
  ];
}

export interface ErrorGroup {
  status: number;
  codes: ErrorCode[];
}

/** The operation's error codes by HTTP status, in the catalog's order. */
export function errorGroups(route: RestOperation): ErrorGroup[] {
  const codes = new Set([...implicitErrors(route), ...(route.errors ?? [])]);
  const groups = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES.filter((c) => codes.has(c))) {
    groups.set(ERRORS[code].status, [...(groups.get(ERRORS[code].status) ?? []), code]);
  }
  return [...groups].sort(([a], [b]) => a - b).map(([status, list]) => ({ status, codes: list }));
}
