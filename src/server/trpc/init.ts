import "server-only";
import { initTRPC, TRPCError, type TRPCMutationProcedure, type TRPCQueryProcedure } from "@trpc/server";
import superjson from "superjson";
import { ERRORS, type ErrorCode, type FieldError } from "@/lib/errors";
import type { SessionActor } from "@/server/auth/actor";
import type { RequestFacts } from "@/server/http/client";
import { DomainError } from "@/server/errors";
import { asDomainError, invoke } from "@/server/operations/invoke";
import type { AnyOperation, OperationInput, OperationOutput } from "@/server/operations/operation";

// How the console calls the operations: each one it uses becomes a tRPC procedure (GET operations
// are queries, the rest mutations) taking the operation's path parameters, query and body as one
// flat object. Access, validation and the handler are the operation's own (operations/invoke.ts);
// the console adds one rule: sys_admins only.

interface Context {
  /** The signed-in console user, or null without a valid session. */
  actor: SessionActor | null;
  /** Where the call came from, for the audit trail (none for in-process callers). */
  request?: RequestFacts;
}

/** What an error carries to the client besides tRPC's code and status. */
export interface ErrorData {
  /** The domain error code (as in the REST problem documents), e.g. `validation_failed`. */
  domainCode: ErrorCode | null;
  /** Field errors of a validation failure, by field path. */
  errors: FieldError[];
  /** The permission a `forbidden` error says is missing. */
  requiredPermission: string | null;
}

const INTERNAL_MESSAGE = "Something went wrong on our side.";

/** The domain error behind a tRPC error, when there is one. */
const domainCause = (error: TRPCError): DomainError | undefined =>
  error.cause instanceof DomainError ? error.cause : undefined;

const t = initTRPC.context<Context>().create({
  transformer: superjson,
  // Built from scratch rather than from tRPC's default shape, so no stack trace ever leaves.
  errorFormatter({ shape, error }) {
    const domain = domainCause(error);
    const internal = error.code === "INTERNAL_SERVER_ERROR";
    const details = domain?.details ?? {};
    const data: ErrorData & { code: typeof shape.data.code; httpStatus: number; path?: string } = {
      code: shape.data.code,
      httpStatus: shape.data.httpStatus,
      path: shape.data.path,
      domainCode: domain?.code ?? (internal ? "internal_error" : null),
      errors: Array.isArray(details.errors) ? (details.errors as FieldError[]) : [],
      requiredPermission: typeof details.required_permission === "string" ? details.required_permission : null,
    };
    return { code: shape.code, message: internal ? INTERNAL_MESSAGE : shape.message, data };
  },
});

export const createTRPCRouter = t.router;
export const createCallerFactory = t.createCallerFactory;

/** A failure as the tRPC error of its domain code, the domain error riding along as the cause. */
export function toTRPCError(error: unknown): TRPCError {
  const domain = asDomainError(error);
  return new TRPCError({
    code: ERRORS[domain.code].trpc,
    message: domain.code === "internal_error" ? INTERNAL_MESSAGE : domain.message,
    cause: domain,
  });
}

// TanStack's infinite queries add `direction` to a list's input; it is theirs, not the operation's.
const CLIENT_KEYS = new Set(["direction"]);

/** Splits the flat input into the operation's path parameters, query and body. */
function splitInput(operation: AnyOperation, input: unknown) {
  const raw = typeof input === "object" && input !== null ? (input as Record<string, unknown>) : {};
  const parts = {
    params: {} as Record<string, unknown>,
    query: {} as Record<string, unknown>,
    body: {} as Record<string, unknown>,
  };
  for (const [key, value] of Object.entries(raw)) {
    if (operation.params?.shape[key]) parts.params[key] = value;
    else if (operation.query?.shape[key]) parts.query[key] = value;
    else if (!CLIENT_KEYS.has(key) || operation.method !== "GET") parts.body[key] = value;
  }
  const unknown = Object.keys(parts.body);
  if (!operation.body && unknown.length > 0) {
    throw new DomainError("validation_failed", "The request is not valid.", {
      errors: unknown.map((path) => ({ path, message: "is not a known field" })),
    });
  }
  return parts;
}

type ProcedureOf<O> = O extends { method: "GET" }
  ? TRPCQueryProcedure<{ input: OperationInput<O>; output: OperationOutput<O>; meta: object }>
  : TRPCMutationProcedure<{ input: OperationInput<O>; output: OperationOutput<O>; meta: object }>;

type ProceduresOf<G> = { [K in keyof G as G[K] extends { console: false } ? never : K]: ProcedureOf<G[K]> };

/**
 * The procedure of an operation. invoke() checks the input and encodes the answer with the
 * operation's response schema, as it does for REST; the procedure's `.input()` and `.output()` pass
 * them through as they are, and its types are the operation's (ProcedureOf). Neither runs a schema
 * again: tRPC's input parser would run before access is decided (invoke() looks at an organization
 * before the rest of the input), and its output parser runs a zod schema forward (parse, i.e.
 * decode) and keeps what that returns, which would turn the encoded answer's ISO strings back into
 * Dates for superjson to carry to the console as Dates.
 */
function procedureFor(operation: AnyOperation) {
  const resolve = async ({ ctx, input }: { ctx: Context; input: unknown }) => {
    try {
      const { params, query, body } = splitInput(operation, input);
      return await invoke(
        operation,
        ctx.actor,
        { params, query, body: () => body },
        { flatPaths: true, console: true, request: ctx.request },
      );
    } catch (error) {
      throw toTRPCError(error);
    }
  };
  const procedure = t.procedure.input((raw: unknown) => raw).output((answer: unknown) => answer);
  return operation.method === "GET" ? procedure.query(resolve) : procedure.mutation(resolve);
}

/** The procedures of a group of operations, typed from their declarations. */
export function proceduresOf<G extends Record<string, AnyOperation>>(group: G): ProceduresOf<G> {
  return Object.fromEntries(
    Object.entries(group)
      .filter(([, operation]) => operation.console !== false)
      .map(([name, operation]) => [name, procedureFor(operation)]),
  ) as unknown as ProceduresOf<G>;
}
