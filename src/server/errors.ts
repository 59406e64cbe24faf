import type { z } from "zod";

// Domain errors, typed once. REST maps them to problem+json and tRPC to its codes, each in one
// place; services and the data layer only ever throw these.

export const ERROR_STATUS = {
  validation_failed: 400,
  unknown_scope: 400,
  immutable_field: 400,
  unauthenticated: 401,
  invalid_api_key: 401,
  api_key_expired: 401,
  api_key_revoked: 401,
  forbidden: 403,
  scope_not_held: 403,
  tier_required: 403,
  quota_exceeded: 403,
  not_overridable: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface FieldError {
  path: string;
  message: string;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = (what = "resource") => new DomainError("not_found", `No such ${what}.`);

export const validationFailed = (errors: FieldError[], message = "The request is not valid.") =>
  new DomainError("validation_failed", message, { errors });

/** A zod failure as field errors, one per offending field (unknown fields each named). */
export function zodFieldErrors(error: z.ZodError, root = ""): FieldError[] {
  return error.issues.flatMap((issue) => {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    return keys.map((key) => ({
      path: [root, ...issue.path, ...(key === undefined ? [] : [key])].map(String).filter((p) => p !== "").join("."),
      message: issue.code === "unrecognized_keys" ? "is not a known field" : issue.message,
    }));
  });
}
