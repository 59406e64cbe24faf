import "server-only";
import { ERRORS, type ErrorCode, type ProblemHeader } from "@/lib/errors";
import type { DomainError } from "@/server/errors";

// RFC 9457 problem details, the one error shape of the REST API, built from the error catalog:
// the members and headers each code exposes, and nothing else of an error's details.

/** Seconds a client waits before retrying when the error does not say. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

// A header whose value an error does not carry is left out (a per-address 429 has no key policy).
const HEADER_VALUES: Record<ProblemHeader, (details: Record<string, unknown>) => string | undefined> = {
  // null: no moment helps (a key's credits without a refill), so no Retry-After is sent.
  "Retry-After": (details) =>
    details.retry_after_seconds === null
      ? undefined
      : String(details.retry_after_seconds ?? DEFAULT_RETRY_AFTER_SECONDS),
  Allow: (details) => (Array.isArray(details.allowed) ? details.allowed.join(", ") : ""),
  "RateLimit-Policy": (details) =>
    typeof details.rate_limit_policy === "string" ? details.rate_limit_policy : undefined,
  RateLimit: (details) => (typeof details.rate_limit === "string" ? details.rate_limit : undefined),
};

/**
 * What a problem document holds at most, as its schema states: `detail` and each string of its
 * members (a message may quote what was sent, a list what was asked for) are cut to a length, and
 * its lists to a number of items. A client that sent a thousand bad fields learns of the first ones.
 */
export const PROBLEM_TEXT_LENGTH = 1000;
export const PROBLEM_MAX_ITEMS = 100;

const clip = (text: string) =>
  text.length <= PROBLEM_TEXT_LENGTH ? text : `${text.slice(0, PROBLEM_TEXT_LENGTH - 1)}…`;

function bounded(value: unknown): unknown {
  if (typeof value === "string") return clip(value);
  if (Array.isArray(value)) return value.slice(0, PROBLEM_MAX_ITEMS).map(bounded);
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, bounded(item)]));
  return value;
}

/** Where a code is explained: its entry in the API reference. */
export const problemType = (code: ErrorCode): string => `/api/docs#error-${code}`;

export function problemBody(error: DomainError) {
  const info = ERRORS[error.code];
  const extensions = Object.fromEntries(
    info.extensions
      .filter((name) => error.details[name] !== undefined)
      .map((name) => [name, bounded(error.details[name])]),
  );
  return {
    type: problemType(error.code),
    title: info.title,
    status: info.status,
    detail: clip(error.message),
    code: error.code,
    ...extensions,
  };
}

/** The headers an error's code sets (Retry-After, Allow, the RateLimit fields). */
export const problemHeaders = (error: DomainError): Record<string, string> =>
  Object.fromEntries(
    ERRORS[error.code].headers.flatMap((name) => {
      const value = HEADER_VALUES[name](error.details);
      return value === undefined ? [] : [[name, value]];
    }),
  );

export function problemResponse(error: DomainError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(error)), {
    status: error.status,
    headers: {
      "Content-Type": "application/problem+json",
      "Cache-Control": "no-store",
      ...problemHeaders(error),
      ...headers,
    },
  });
}
