import "server-only";
import type { z } from "zod";
import { ERRORS, type ErrorCode, type FieldError } from "@/lib/errors";

// Domain errors: services and the data layer only ever throw these (or database errors, which
// invoke() maps once for REST and tRPC). Their codes, statuses and titles are in src/lib/errors.ts.

export type { ErrorCode, FieldError };

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    // An answer (4xx) is not a fault: nobody reads its stack, and capturing one would cost a refused
    // request more than the rest of its work (docs/decisions/008-key-cache-and-invalidation.md).
    // Faults (5xx) keep theirs, for the log.
    const stackTraceLimit = Error.stackTraceLimit;
    if (ERRORS[code].status < 500) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    this.name = "DomainError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERRORS[this.code].status;
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
      path: [root, ...issue.path, ...(key === undefined ? [] : [key])]
        .map(String)
        .filter((p) => p !== "")
        .join("."),
      message: issue.code === "unrecognized_keys" ? "is not a known field" : issue.message,
    }));
  });
}
