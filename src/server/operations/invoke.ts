import "server-only";
import { z } from "zod";
import { id } from "@/lib/schemas/common";
import { systemActor, type Actor } from "@/server/auth/actor";
import { authorizeIncludeDeleted, authorizeOperation } from "@/server/auth/authorize";
import { mapDatabaseError } from "@/server/db/errors";
import { changeContext, readContext, type Context } from "@/server/db/context";
import { dataLayer } from "@/server/db/data-layer";
import { inUnitOfWork } from "@/server/db/unit-of-work";
import type { RequestFacts } from "@/server/http/client";
import { changesOf, NO_REQUEST, recordAlone, recordChange } from "@/server/services/audit/record";
import { orgOf, targetOf, type Target } from "./audit";
import { DomainError, validationFailed, zodFieldErrors } from "@/server/errors";
import { log } from "@/server/log";
import { inSpan, noteOperation } from "@/server/tracing/spans";
import { immutableAnswer, isChange, type AnyOperation } from "./operation";
import { rawInputProblems } from "./raw-input";

// Runs an operation the same way for the REST API and the console's tRPC: path parameters → access
// (first, so another tenant's organization looks missing whatever the body says) → query →
// `include_deleted` → body → handler; database errors are mapped here, once. A change (any method
// but GET, unless it declares `reads`) runs in a unit of work opened here, so its writes and audit
// event commit together; a read runs on the pool; a refusal (403) is recorded on its own. See docs/decisions/003-unit-of-work.md.

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
  /** Where the call came from, for the audit trail. */
  request?: RequestFacts;
  /**
   * Called once the call is authorized and its input valid, before the handler: the REST door spends
   * a key's credits here, so a refused request costs none. What it returns undoes that when the
   * handler refuses the call or fails, before the refusal is answered: only an answered call spends.
   */
  admitted?: () => Promise<() => Promise<void>>;
}

/** `value` checked as raw input (raw-input.ts), then parsed by `schema`. */
function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, root: string): T {
  if (!schema) return {} as T;
  const problems = rawInputProblems(value, root);
  if (problems.length > 0) throw validationFailed(problems);
  const result = schema.safeParse(value);
  if (!result.success)
    throw new DomainError("validation_failed", "The request is not valid.", {
      errors: zodFieldErrors(result.error, root),
    });
  return result.data;
}

export async function invoke(
  operation: AnyOperation,
  actor: Actor | null,
  raw: RawInput,
  options: InvokeOptions = {},
): Promise<unknown> {
  const request = options.request ?? NO_REQUEST;
  noteOperation(operation.id);
  try {
    return await checkedCall(operation, actor, raw, options, request);
  } catch (error) {
    if (actor && error instanceof DomainError && error.code === "forbidden") {
      const params = (raw.params ?? {}) as Record<string, unknown>;
      const target = targetOf(operation, actor, params, undefined);
      await recordAlone(dataLayer("system:audit"), {
        actor,
        action: operation.id,
        outcome: "denied",
        target,
        orgId: orgOf(params, target),
        request,
      });
    }
    throw error;
  }
}

async function checkedCall(
  operation: AnyOperation,
  actor: Actor | null,
  raw: RawInput,
  options: InvokeOptions,
  request: RequestFacts,
): Promise<unknown> {
  if (operation.access !== "public" && !actor) {
    throw new DomainError("unauthenticated", "Send an API key in the X-API-KEY header, or sign in.");
  }
  const root = (name: string) => (options.flatPaths ? "" : name);
  const rawParams = (raw.params ?? {}) as Record<string, unknown>;
  // The organization is checked before anything else of the input, so another tenant's looks missing
  // whatever the rest says.
  // An organization in the path counts whatever the access declared (a key restricted to other
  // organizations may not act there).
  const org =
    (typeof operation.access === "object" ? operation.access.org : undefined) ??
    ("org_id" in rawParams ? "org_id" : undefined);
  const scope = org ? parse(z.strictObject({ [org]: id }), { [org]: rawParams[org] }, root("params")) : {};
  // The decision on the span: denied unless the check returns.
  inSpan("authorize", { "svc.operation": operation.id }, (span) => {
    span?.setAttribute("svc.authorization", "denied");
    authorizeOperation(operation.access, actor, scope, {
      console: options.console,
      write: operation.method !== "GET",
      duringTwoFactorSetup: operation.duringTwoFactorSetup,
    });
    span?.setAttribute("svc.authorization", "granted");
  });
  const params = parse(operation.params, rawParams, root("params"));
  const query = parse(operation.query, raw.query ?? {}, root("query"));
  authorizeIncludeDeleted(actor, query);
  const rawBody = await raw.body();
  const body = operation.body ? parse(operation.body, rawBody ?? {}, "") : undefined;
  const undoAdmission = await options.admitted?.();
  // A call without credentials (a public operation) acts as the system on the caller's behalf.
  const acting = actor ?? systemActor("anonymous");
  // The answer is encoded inside the call: for a change, before its unit of work commits.
  const call = async (ctx: Context): Promise<unknown> =>
    encodeAnswer(operation, await operation.handler({ ...ctx, params, query, body } as never));
  try {
    if (!isChange(operation)) return await call(readContext(acting));
    return await auditedChange(acting, request, call, (result) => {
      if (operation.audits) return { action: operation.id, ...operation.audits(result as never) };
      const target = targetOf(operation, actor, params as Record<string, unknown>, result);
      return { action: operation.id, target, orgId: orgOf(params as Record<string, unknown>, target) };
    });
  } catch (error) {
    await undoAdmission?.();
    throw error;
  }
}

/**
 * The handler's answer as the wire carries it, through the operation's response schema: moments
 * become ISO strings, and only the fields the schema declares go out. Both doors send this, so
 * they cannot disagree. An answer outside its schema is a bug, not the caller's fault: it is logged
 * with what did not fit and answered as an internal error (500, which no operation declares, so the
 * tests' answer check fails on it), and a change it came from does not commit.
 */
function encodeAnswer(operation: AnyOperation, answer: unknown): unknown {
  const kept = typeof answer === "object" && answer !== null && Object.isFrozen(answer);
  const known = kept ? keptEncodings.get(answer) : undefined;
  if (known?.schema === operation.response) return known.encoded;
  const encoded = operation.response.safeEncode(answer);
  if (!encoded.success) {
    log.error("answer outside its schema", { operation: operation.id, issues: z.prettifyError(encoded.error) });
    throw new DomainError("internal_error", "Something went wrong on our side.");
  }
  if (!kept) return encoded.data;
  const immutable = immutableAnswer(encoded.data);
  keptEncodings.set(answer, { schema: operation.response, encoded: immutable });
  return immutable;
}

// The encodings of answers that never change (immutableAnswer), each kept as long as its answer is,
// with the schema it was made by. The encoding is frozen too, so the REST door writes its JSON once.
const keptEncodings = new WeakMap<object, { schema: z.ZodType; encoded: unknown }>();

/** What an audit event says a change was: its action, target and organization. */
export type ChangeDescription = { action: string; target: Target; orgId: string | null };

/**
 * A change and its audit event as one unit of work: `work` is handed the unit's context, and the
 * event, written last with the unit's own data layer, says what the unit's journal saw change. Every
 * door's changes go through here: the operations' (above) and the CLI's commands.
 */
export function auditedChange<T>(
  actor: Actor,
  request: RequestFacts,
  work: (ctx: Context) => Promise<T>,
  describe: (result: T) => ChangeDescription,
): Promise<T> {
  return inUnitOfWork(async (unit) => {
    const ctx = changeContext(actor, unit);
    const result = await work(ctx);
    const { action, target, orgId } = describe(result);
    await recordChange(ctx, {
      actor,
      action,
      outcome: "success",
      target,
      orgId,
      changes: changesOf(unit.writes, target.id),
      request,
    });
    return result;
  });
}

/** Any failure as the domain error it stands for; what nobody understands is an internal error. */
export function asDomainError(error: unknown): DomainError {
  return mapDatabaseError(error) ?? new DomainError("internal_error", "Something went wrong on our side.");
}
