import "server-only";
import type { z } from "zod";
import type { ErrorCode } from "@/lib/errors";
import { includeDeletedQuery } from "@/lib/schemas/common";
import type { Context } from "@/server/db/context";
import { defineOperation, type ObjectSchema, type PermissionAccess } from "./operation";

// What every soft-deletable resource answers alike: read one (sys_admins may pass
// include_deleted=true to read a deleted one), delete it (soft: it disappears from reads), and
// restore it (sys_admins only). Declared together, so no such resource can miss one of the three.

interface Access {
  read: PermissionAccess;
  delete: PermissionAccess;
  restore: PermissionAccess;
}

export interface SoftDeletableSpec<P extends ObjectSchema, R extends z.ZodType> {
  /** The resource's name in operation ids: getX, deleteX, restoreX. */
  name: string;
  /** The resource in a sentence, with its article: "an LLM config". */
  noun: string;
  /** The path of one such resource. */
  path: string;
  tag: string;
  params: P;
  response: R;
  access: Access;
  /** What else to say of a delete or a restore. */
  notes?: { delete?: string; restore?: string };
  errors?: { delete?: readonly ErrorCode[]; restore?: readonly ErrorCode[] };
  get: (ctx: Context, params: z.output<P>, options: { includeDeleted?: boolean }) => Promise<z.output<R>>;
  delete: (ctx: Context, params: z.output<P>) => Promise<z.output<R>>;
  restore: (ctx: Context, params: z.output<P>) => Promise<z.output<R>>;
}

export function softDeletable<P extends ObjectSchema, R extends z.ZodType>(spec: SoftDeletableSpec<P, R>) {
  const { name, noun, path, tag, params, response, access } = spec;
  return {
    get: defineOperation({
      id: `get${name}`,
      method: "GET",
      path,
      tag,
      summary: `Read ${noun}`,
      description: "sys_admins may pass `include_deleted=true` to read a deleted one.",
      access: access.read,
      params,
      query: includeDeletedQuery,
      response,
      errors: ["not_found"],
      handler: ({ params, query, ...ctx }) =>
        spec.get(ctx, params as z.output<P>, { includeDeleted: query.include_deleted }),
    }),
    delete: defineOperation({
      id: `delete${name}`,
      method: "DELETE",
      path,
      tag,
      summary: `Delete ${noun} (soft)`,
      description: spec.notes?.delete,
      access: access.delete,
      params,
      response,
      errors: ["not_found", ...(spec.errors?.delete ?? [])],
      handler: ({ params, ...ctx }) => spec.delete(ctx, params as z.output<P>),
    }),
    restore: defineOperation({
      id: `restore${name}`,
      method: "POST",
      path: `${path}/restore`,
      tag,
      summary: `Restore ${noun.replace(/^an? /, "a deleted ")}`,
      description: spec.notes?.restore,
      access: { ...access.restore, sysAdmin: true },
      params,
      response,
      errors: ["not_found", ...(spec.errors?.restore ?? [])],
      handler: ({ params, ...ctx }) => spec.restore(ctx, params as z.output<P>),
    }),
  };
}
