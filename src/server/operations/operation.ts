import "server-only";
import type { z } from "zod";
import type { ErrorCode } from "@/lib/errors";
import type { Permission } from "@/lib/permissions";
import type { Context } from "@/server/db/context";

// An operation is declared once: who may call it, its input and output schemas, its success
// status, the errors it can answer with, and its handler. The REST route (registry, OpenAPI,
// Location on 201), the console's tRPC procedure and the tests are all derived from the declaration.

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export const METHODS: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export interface PermissionAccess {
  permission: Permission;
  /** The caller must also be a sys_admin. */
  sysAdmin?: boolean;
  /** Organization-scoped: the input field (a path parameter) holding the organization's id. */
  org?: string;
  /** With `org`: a list, so an organization the caller has no part in answers 403 rather than 404. */
  list?: boolean;
  /** The permission held in any one organization suffices (catalogs every organization reads). */
  anyOrg?: boolean;
}

/**
 * "public": no credentials; "authenticated": any key or session; "session": a signed-in console
 * session (what a user does for themself, never through a key); "metrics": the metrics scraper's
 * Bearer token (SVC_METRICS_TOKEN), or a loopback client when none is set; otherwise a permission.
 */
export type Access = "public" | "authenticated" | "session" | "metrics" | PermissionAccess;

export type ObjectSchema = z.ZodObject<z.core.$ZodShape, z.core.$ZodObjectConfig>;

type Out<S> = S extends z.ZodType ? z.output<S> : Record<string, never>;

/** What a handler is given: the call's context (who acts, and its database: a change's own transaction) and its input. */
interface OperationContext<P, Q, B> extends Context {
  params: P;
  query: Q;
  body: B;
}

export interface Operation<
  M extends Method = Method,
  P extends ObjectSchema | undefined = ObjectSchema | undefined,
  Q extends ObjectSchema | undefined = ObjectSchema | undefined,
  B extends ObjectSchema | undefined = ObjectSchema | undefined,
  R extends z.ZodType = z.ZodType,
> {
  /** The operationId: also the action the audit trail records. */
  id: string;
  method: M;
  /** The REST path in OpenAPI form (`/api/v1/organizations/{org_id}`); null: the console only. */
  path: string | null;
  /** false: REST only (operations the console has no use for, such as health checks). */
  console?: false;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /**
   * Also open to a session held to setting up two-factor authentication (a sys_admin without it
   * while the platform requires it), which may call nothing else.
   */
  duringTwoFactorSetup?: true;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * The answer's schema. Its output is what the handler returns (a moment as a Date), its input the
   * JSON a client receives: invoke() encodes every answer with it, whichever door asked.
   */
  response: R;
  /** Success status: 201 for an operation that names what it created, else 200 unless given (202: accepted, done later — a webhook test or retry). */
  status?: 200 | 201 | 202;
  /** What the operation created: its id, appended to the request path to make its Location (the status is then 201). */
  created?: (result: z.input<R>) => string;
  /** For a 201 whose new resource lives in another collection than the request path (a rolled key): that collection's path. */
  createdIn?: string;
  /** The media type of a response that is not JSON (the handler then returns its text). */
  produces?: string;
  /** The response holds a secret: Cache-Control no-store, and the raw value is never logged. */
  secret?: boolean;
  /** Calls per client address (an IPv6 client's /64) allowed per window; over it, 429 `rate_limited`. */
  addressLimit?: { name: string; requests: number; windowSeconds: number };
  /**
   * A POST that changes nothing the audit trail records (verifying a key, which spends the verified
   * key's credits as a request would): it runs as a read, without a unit of work or audit event.
   */
  reads?: true;
  /** What its audit event names, where the path does not say (a change reached by a token, not an id). */
  audits?: (result: z.input<R>) => { target: { type: string; id: string }; orgId: string | null };
  /** Error codes this operation can answer with, besides the ones every operation has. */
  errors?: readonly ErrorCode[];
  handler: (ctx: OperationContext<Out<P>, Out<Q>, Out<B>>) => Promise<z.output<R>> | z.output<R>;
}

/** Whether calling the operation is a change: its writes and audit event commit together, and its webhooks fire. */
export const isChange = (operation: { method: Method; reads?: true }): boolean =>
  operation.method !== "GET" && !operation.reads;

export type AnyOperation = Operation<
  Method,
  ObjectSchema | undefined,
  ObjectSchema | undefined,
  ObjectSchema | undefined,
  z.ZodType
>;

/** A resource inside an organization: its collection's path, one item's path, and reading and writing it there. */
export function inOrganization<const R extends `${string}:read`, const W extends `${string}:write`>(
  collection: string,
  idParam: string,
  permissions: { read: R & Permission; write: W & Permission },
) {
  const base = `/api/v1/organizations/{org_id}/${collection}`;
  return {
    BASE: base,
    ONE: `${base}/{${idParam}}`,
    read: { permission: permissions.read, org: "org_id" } as const,
    write: { permission: permissions.write, org: "org_id" } as const,
  };
}

/** Keeps an operation's types tied together: the handler receives what the schemas output. */
export function defineOperation<
  const M extends Method,
  P extends ObjectSchema | undefined = undefined,
  Q extends ObjectSchema | undefined = undefined,
  B extends ObjectSchema | undefined = undefined,
  R extends z.ZodType = z.ZodType,
>(operation: Operation<M, P, Q, B, R>): Operation<M, P, Q, B, R> {
  return operation.created && !operation.status ? { ...operation, status: 201 } : operation;
}

/** The whole input of an operation as one object: path parameters, query and body side by side. */
export type OperationInput<O> =
  O extends Operation<Method, infer P, infer Q, infer B, z.ZodType>
    ? [P, Q, B] extends [undefined, undefined, undefined]
      ? void
      : (P extends z.ZodType ? z.input<P> : unknown) &
          (Q extends z.ZodType ? z.input<Q> : unknown) &
          (B extends z.ZodType ? z.input<B> : unknown)
    : never;

/** What a client receives: the answer as encoded, in the JSON's own types (a moment is a string). */
export type OperationOutput<O> =
  O extends Operation<Method, ObjectSchema | undefined, ObjectSchema | undefined, ObjectSchema | undefined, infer R>
    ? z.input<R>
    : never;

/**
 * An answer that never changes once made, frozen all through: a handler that keeps its answers
 * returns one again and again, and invoke() encodes it once and keeps the encoding as long as the
 * answer lives (docs/decisions/051-one-encoder.md).
 */
export function immutableAnswer<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) immutableAnswer(member);
    Object.freeze(value);
  }
  return value;
}
