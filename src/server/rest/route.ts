import type { z } from "zod";
import type { Actor } from "@/server/auth/actor";
import type { Permission } from "@/server/auth/permissions";
import type { ErrorCode } from "@/server/errors";

// A REST route is declared once: method, path, who may call it, its input and output schemas.
// The handler wrapper (handler.ts) enforces the declaration; the OpenAPI document is built from it.

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
export const METHODS: readonly Method[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

export interface RouteAccess {
  permission: Permission;
  sysAdmin?: boolean;
  /** Path parameter holding the organization id of an organization-scoped route. */
  org?: string;
  /** The permission held in any one organization suffices (catalogs every organization reads). */
  anyOrg?: boolean;
}

export interface RouteContext<P, Q, B> {
  actor: Actor;
  params: P;
  query: Q;
  body: B;
  request: Request;
}

/** A response with a status or headers of its own (a plain return value answers `status`). */
export class RouteResult<R> {
  constructor(
    readonly body: R,
    readonly init: { status?: number; headers?: Record<string, string> } = {},
  ) {}
}

export interface RouteSpec<P = unknown, Q = unknown, B = unknown, R = unknown> {
  method: Method;
  /** OpenAPI form, e.g. /api/admin/users/api-keys/{key_id}. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /**
   * "public": no credentials; otherwise an API key or a console session is required, holding
   * `permission` — in the organization named by the path parameter `org` when given.
   */
  access: "public" | "authenticated" | RouteAccess;
  /** A list route: an organization the caller is not in answers 403 rather than 404. */
  list?: boolean;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  response: z.ZodType<R>;
  /** Success status (200 by default). */
  status?: number;
  /** The response holds a secret: Cache-Control no-store. */
  secret?: boolean;
  /** Error codes this route can answer with, besides the ones every route has. */
  errors?: readonly ErrorCode[];
  handler: (ctx: RouteContext<P, Q, B>) => Promise<R | RouteResult<R>>;
}

/** Keeps the spec's types tied together (the handler receives what the schemas output). */
export function defineRoute<P = Record<string, never>, Q = Record<string, never>, B = undefined, R = unknown>(
  spec: RouteSpec<P, Q, B, R>,
): RouteSpec<P, Q, B, R> {
  return spec;
}
