import { z } from "zod";

// Building blocks shared by every resource's schemas (browser-safe: the console validates with
// the same schemas the server enforces).

export const id = z.uuid({ error: "must be a UUID" });
export const timestamp = z.iso.datetime({ offset: true });

export const limit = z.coerce.number().int().min(1).max(100).default(50);
export const cursor = z.string().min(1).max(200).optional();

/** `true` / `false` in a query string (the console sends the same strings). */
export const booleanQuery = z.stringbool({ truthy: ["true"], falsy: ["false"] }).meta({ enum: ["true", "false"] });

/** When a record was created and last changed. */
export const timestamps = { created_at: timestamp, updated_at: timestamp };
/** What every soft-deletable record answers besides its own fields. */
export const softDeletedRecord = { is_deleted: z.boolean(), ...timestamps };

/** A list's page: how many, and where the previous page ended. */
export const pageQuery = z.strictObject({ limit, cursor });

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });

/** sys_admins may ask for soft-deleted records too. */
export const includeDeleted = booleanQuery.optional().describe("sys_admins only: soft-deleted records too.");
export const includeDeletedQuery = z.strictObject({ include_deleted: includeDeleted });
