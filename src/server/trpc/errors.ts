import { TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { z } from "zod";
import { mapDatabaseError } from "@/server/db/errors";
import { DomainError, validationFailed, zodFieldErrors } from "@/server/errors";

// Domain errors become tRPC errors here and nowhere else, by their HTTP status: the same status the
// REST routes answer with. The domain error rides along as the cause, so the error formatter
// (init.ts) can expose its code and field errors.

const CODE_BY_STATUS: Readonly<Record<number, TRPC_ERROR_CODE_KEY>> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_SUPPORTED",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "TOO_MANY_REQUESTS",
  503: "SERVICE_UNAVAILABLE",
};

const trpcCodeFor = (error: DomainError): TRPC_ERROR_CODE_KEY => CODE_BY_STATUS[error.status] ?? "INTERNAL_SERVER_ERROR";

/**
 * The tRPC error a procedure's failure stands for: input validation and domain (or database)
 * errors get their mapped code with the domain error as cause; anything else is left as it is
 * (tRPC's own errors, and internal errors the formatter hides).
 */
export function toTRPCError(error: TRPCError): TRPCError {
  const cause = error.cause instanceof z.ZodError ? validationFailed(zodFieldErrors(error.cause)) : mapDatabaseError(error.cause);
  if (!cause) return error;
  return new TRPCError({ code: trpcCodeFor(cause), message: cause.message, cause });
}

/** The domain error behind a tRPC error, when there is one. */
export const domainCause = (error: TRPCError): DomainError | undefined =>
  error.cause instanceof DomainError ? error.cause : undefined;
