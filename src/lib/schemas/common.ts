import { z } from "zod";

// Building blocks shared by every resource's schemas (browser-safe: the console validates with
// the same schemas the server enforces).

export const id = z.uuid({ error: "must be a UUID" }).meta({ examples: ["0193a5c2-7d1e-7b4a-9c3f-2e8d6f1a4b70"] });
export const timestamp = z.iso.datetime({ offset: true }).meta({ examples: ["2026-01-15T09:30:00.000Z"] });

export const limit = z.coerce.number().int().min(1).max(100).default(50).describe("How many items a page holds.");
export const cursor = z.string().min(1).max(200).optional().describe("The `next_cursor` of the previous page; omit it for the first page.");

/** `true` / `false` in a query string (the console sends the same strings). */
export const booleanQuery = z.stringbool({ truthy: ["true"], falsy: ["false"] }).meta({ enum: ["true", "false"] });

/** When a record was created and last changed. */
export const timestamps = { created_at: timestamp, updated_at: timestamp };
/** What every soft-deletable record answers besides its own fields. */
export const softDeletedRecord = { is_deleted: z.boolean(), ...timestamps };

/** A list's page: how many, and where the previous page ended. */
export const pageQuery = z.strictObject({ limit, cursor });

export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe("Pass it back as `cursor` for the next page; null on the last page."),
  });

/** sys_admins may ask for soft-deleted records too. */
export const includeDeleted = booleanQuery.optional().describe("sys_admins only: soft-deleted records too.");
export const includeDeletedQuery = z.strictObject({ include_deleted: includeDeleted });
