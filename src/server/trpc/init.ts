import { initTRPC } from "@trpc/server";
import superjson from "superjson";
import { z } from "zod";
import { id } from "@/lib/schemas/common";
import type { SessionActor } from "@/server/auth/actor";
import { requireOrgPermission, requirePermission, requireSysAdmin } from "@/server/auth/authorize";
import type { Permission } from "@/server/auth/permissions";
import { DomainError, validationFailed, zodFieldErrors, type ErrorCode, type FieldError } from "@/server/errors";
import { domainCause, toTRPCError } from "./errors";

// The console's tRPC layer. Every procedure is built by `consoleProcedure(permission)` or, inside an
// organization, `orgProcedure(permission)`: it declares the permission it needs, and one middleware
// checks it with the permission module the REST routes use. The console is for sys_admins only, so
// every procedure also requires one.

export interface Context {
  /** The signed-in console user, or null without a valid session. */
  actor: SessionActor | null;
}

export interface Meta {
  permission: Permission;
  /**
   * Organization-scoped: the permission is checked in the organization named by the input's
   * `org_id`. "list": an organization the caller has no part in answers FORBIDDEN rather than
   * NOT_FOUND (as the REST list routes do).
   */
  org?: "one" | "list";
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

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
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

/** Wraps everything a procedure does (input parsing included): failures get their mapped code. */
const mappedErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error);
  return result;
});

/** What an organization-scoped procedure's input carries, checked before the procedure's own input. */
const orgScope = z.object({ org_id: id });

/**
 * Signed in, a sys_admin, and holding the procedure's declared permission — for an
 * organization-scoped one, in the organization of the input's `org_id`, through the same
 * `requireOrgPermission` as the REST routes. That check comes first, so an organization the caller
 * has no part in looks missing whoever asks (NOT_FOUND; FORBIDDEN for lists).
 */
const authorized = t.middleware(async ({ ctx, meta, next, getRawInput }) => {
  if (!ctx.actor) throw new DomainError("unauthenticated", "Sign in to use the console.");
  // A procedure that declares nothing is refused rather than left open.
  if (!meta?.permission) throw new DomainError("forbidden", "This procedure declares no permission.");
  if (meta.org) {
    const scope = orgScope.safeParse(await getRawInput());
    if (!scope.success) throw validationFailed(zodFieldErrors(scope.error));
    requireOrgPermission(ctx.actor, meta.permission, scope.data.org_id, { list: meta.org === "list" });
    requireSysAdmin(ctx.actor);
  } else {
    requireSysAdmin(ctx.actor);
    requirePermission(ctx.actor, meta.permission);
  }
  return next({ ctx: { actor: ctx.actor } });
});

/** The builder of every console procedure: `consoleProcedure("svc:system:api_keys:read").query(...)`. */
export const consoleProcedure = (permission: Permission) => t.procedure.use(mappedErrors).meta({ permission }).use(authorized);

/**
 * A procedure inside one organization, named by its input's `org_id`:
 * `orgProcedure("svc:orchestrators:read").input(z.object({ org_id: id, ... }))`. `list: true` for
 * list procedures (FORBIDDEN rather than NOT_FOUND outside the organization).
 */
export const orgProcedure = (permission: Permission, options: { list?: boolean } = {}) =>
  t.procedure
    .use(mappedErrors)
    .meta({ permission, org: options.list ? "list" : "one" })
    .use(authorized);
