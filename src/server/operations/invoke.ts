import "server-only";
import { z } from "zod";
import { id } from "@/lib/schemas/common";
import type { Actor } from "@/server/auth/actor";
import { authorizeIncludeDeleted, authorizeOperation } from "@/server/auth/authorize";
import { mapDatabaseError } from "@/server/db/errors";
import { DomainError, validationFailed, zodFieldErrors } from "@/server/errors";
import type { AnyOperation } from "./operation";
import { rawInputProblems } from "./raw-input";

// What both doors (REST and tRPC) do with a call, in the same order: path parameters → access
// (before anything else is looked at, so another tenant's organization looks missing whatever the
// body says) → query → `include_deleted` → body → the handler. Failures are domain errors; database
// errors are mapped here, once.

export interface RawInput {
  params: unknown;
  query: unknown;
  /** Read only once access is granted (a REST body is not read for a caller who may not send it). */
  body: () => unknown;
}

export interface InvokeOptions {
  /** Field paths of validation errors: REST prefixes `params.` and `query.`; tRPC's input is flat. */
  flatPaths?: boolean;
  /** The console door: sys_admins only. */
  console?: boolean;
}

/** `value` checked as raw input (raw-input.ts), then parsed by `schema`. */
function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, root: string): T {
  if (!schema) return {} as T;
  const problems = rawInputProblems(value, root);
  if (problems.length > 0) throw validationFailed(problems);
  const result = schema.safeParse(value);
  if (!result.success) throw new DomainError("validation_failed", "The request is not valid.", { errors: zodFieldErrors(result.error, root) });
  return result.data;
}

export async function invoke(operation: AnyOperation, actor: Actor | null, raw: RawInput, options: InvokeOptions = {}): Promise<unknown> {
  if (operation.access !== "public" && !actor) {
    throw new DomainError("unauthenticated", "Send an API key in the X-API-KEY header, or sign in.");
  }
  const root = (name: string) => (options.flatPaths ? "" : name);
  const rawParams = (raw.params ?? {}) as Record<string, unknown>;
  // The organization is checked before anything else of the input, so another tenant's looks missing
  // whatever the rest says.
  const org = typeof operation.access === "object" ? operation.access.org : undefined;
  const scope = org ? parse(z.strictObject({ [org]: id }), { [org]: rawParams[org] }, root("params")) : {};
  authorizeOperation(operation.access, actor, scope, { console: options.console, write: operation.method !== "GET" });
  const params = parse(operation.params, rawParams, root("params"));
  const query = parse(operation.query, raw.query ?? {}, root("query"));
  authorizeIncludeDeleted(actor, query);
  const rawBody = await raw.body();
  const body = operation.body ? parse(operation.body, rawBody ?? {}, "") : undefined;
  return operation.handler({ actor: actor as Actor, params, query, body } as never);
}

/** Any failure as the domain error it stands for; what nobody understands is an internal error. */
export function asDomainError(error: unknown): DomainError {
  return mapDatabaseError(error) ?? new DomainError("internal_error", "Something went wrong on our side.");
}
