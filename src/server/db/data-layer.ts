import "server-only";
import { LRUCache } from "lru-cache";
import { Prisma } from "@/generated/prisma/client";
import { baseClient, type BaseClient } from "./client";

// The database as one actor sees it, `dataLayer(actor)` (services are handed theirs, on a change's
// transaction when they make one: unit-of-work.ts):
// - soft-deleted rows are left out of reads, updates, deletes and counts of the tables that have
//   is_deleted, and so are the rows of a soft-deleted organization;
//   `{ includeDeleted: true }` is the one explicit way (for sys_admin code) to see them;
// - created_by / updated_by are filled from the acting user on the tables that have them.

/** Who is writing: a user id, or `system:<component>` for the CLI, seed and start-up. */
export type AuditName = string;

const columnsByModel = new Map<string, Set<string>>(
  Object.values(Prisma.ModelName).map((model) => [
    model,
    new Set(Object.keys((Prisma as unknown as Record<string, object>)[`${model}ScalarFieldEnum`] ?? {})),
  ]),
);

const hasColumn = (model: string, column: string) => columnsByModel.get(model)?.has(column) ?? false;

type Args = { where?: Record<string, unknown>; data?: unknown; create?: unknown; update?: unknown };

/**
 * Rows that belong to an organization go with it: while the organization is soft-deleted its
 * children are not found either (restoring it brings them back). `optional`: the row may belong to
 * no organization (system plugins, global grants), and then stays.
 */
const ORGANIZATION_CHILDREN: Readonly<Record<string, "required" | "optional">> = {
  OrganizationSetting: "required",
  OrganizationLlmConfig: "required",
  OrchestratorInstance: "required",
  CentralPoint: "required",
  UserOrgMembership: "required",
  Conversation: "required",
  OrganizationDomain: "required",
  UserRole: "optional",
  Plugin: "optional",
  WebhookEndpoint: "optional",
};

const LIVE_ORGANIZATION = { org: { is_deleted: false } };
const NO_OR_LIVE_ORGANIZATION = { OR: [{ org_id: null }, LIVE_ORGANIZATION] };

function withoutDeleted(model: string, args: Args): Args {
  const where: Record<string, unknown> = { ...args.where };
  // An explicit is_deleted in the filter is the caller's decision (for example a restore).
  if (hasColumn(model, "is_deleted") && !("is_deleted" in where)) where.is_deleted = false;
  const parent = ORGANIZATION_CHILDREN[model];
  if (parent) {
    const and = where.AND;
    where.AND = [
      ...(Array.isArray(and) ? and : and ? [and] : []),
      parent === "required" ? LIVE_ORGANIZATION : NO_OR_LIVE_ORGANIZATION,
    ];
  }
  return { ...args, where };
}

function stamp(model: string, data: unknown, actor: AuditName, creating: boolean): unknown {
  if (Array.isArray(data)) return data.map((row) => stamp(model, row, actor, creating));
  if (typeof data !== "object" || data === null) return data;
  const stamped: Record<string, unknown> = { ...(data as Record<string, unknown>) };
  if (creating && hasColumn(model, "created_by")) stamped.created_by ??= actor;
  if (hasColumn(model, "updated_by")) stamped.updated_by ??= actor;
  return stamped;
}

// Every operation that selects rows by a filter. Nested relation reads (include/select of a
// relation) are not filtered: services filter them explicitly. An upsert addresses a row by a
// unique key that a soft-deleted row still occupies, so it is left alone: its update revives the
// row when it sets is_deleted to false.
const FILTERED_OPERATIONS = [
  "findMany",
  "findFirst",
  "findFirstOrThrow",
  "findUnique",
  "findUniqueOrThrow",
  "count",
  "aggregate",
  "groupBy",
  "update",
  "updateMany",
  "updateManyAndReturn",
  "delete",
  "deleteMany",
] as const;

function softDeleteFilter() {
  return Prisma.defineExtension({
    name: "soft-delete-filter",
    query: {
      $allModels: Object.fromEntries(
        FILTERED_OPERATIONS.map((operation) => [
          operation,
          ({ model, args, query }: { model: string; args: Args; query: (a: Args) => Promise<unknown> }) =>
            query(withoutDeleted(model, args)),
        ]),
      ),
    },
  });
}

function auditColumns(actor: AuditName) {
  return Prisma.defineExtension({
    name: "audit-columns",
    query: {
      $allModels: {
        create: ({ model, args, query }) =>
          query({ ...args, data: stamp(model, args.data, actor, true) } as typeof args),
        createMany: ({ model, args, query }) =>
          query({ ...args, data: stamp(model, args.data, actor, true) } as typeof args),
        createManyAndReturn: ({ model, args, query }) =>
          query({ ...args, data: stamp(model, args.data, actor, true) } as typeof args),
        update: ({ model, args, query }) =>
          query({ ...args, data: stamp(model, args.data, actor, false) } as typeof args),
        updateMany: ({ model, args, query }) =>
          query({ ...args, data: stamp(model, args.data, actor, false) } as typeof args),
        upsert: ({ model, args, query }) =>
          query({
            ...args,
            create: stamp(model, args.create, actor, true),
            update: stamp(model, args.update, actor, false),
          } as typeof args),
      },
    },
  });
}

export interface DataLayerOptions {
  /** Include soft-deleted rows: for sys_admin views and restores only. */
  includeDeleted?: boolean;
  client?: BaseClient;
}

function extended(client: BaseClient, actor: AuditName, includeDeleted: boolean) {
  const audited = client.$extends(auditColumns(actor));
  return includeDeleted ? audited : audited.$extends(softDeleteFilter());
}

export type DataLayer = ReturnType<typeof extended>;

// Extending a client costs ~0.1 ms and a burst of garbage, on every request: the extended clients
// are kept per client and actor (they hold no state of their own), the most recently used ones.
const MAX_CACHED_ACTORS = 1_000;
const cache = new WeakMap<BaseClient, LRUCache<string, DataLayer>>();

/** The database as seen by one actor. */
export function dataLayer(actor: AuditName, options: DataLayerOptions = {}): DataLayer {
  const client = options.client ?? baseClient();
  const includeDeleted = options.includeDeleted ?? false;
  let byActor = cache.get(client);
  if (!byActor) cache.set(client, (byActor = new LRUCache({ max: MAX_CACHED_ACTORS })));
  const key = `${includeDeleted ? "all" : "live"}:${actor}`;
  let db = byActor.get(key);
  if (!db) byActor.set(key, (db = extended(client, actor, includeDeleted)));
  return db;
}
