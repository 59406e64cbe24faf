import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { Prisma } from "@/generated/prisma/client";
import { env } from "@/server/env";
import { baseClient, type BaseClient } from "./client";

// One transaction for a whole unit of work (an operation's change and its audit event), without
// the services passing it around: while `inOneTransaction` runs, every statement the data layer
// sends — and every `$transaction` a service opens, which joins it — goes through that one
// interactive transaction, found in async context. Outside one, nothing changes. The unit keeps a
// journal of the rows it wrote (each single-row write with the row before and after), from which
// the audit trail tells what changed.

type Tx = Prisma.TransactionClient;

/** One single-row write: the row before it (update, upsert, delete) and after it (create, update, upsert). */
export interface Write {
  model: string;
  operation: "create" | "update" | "upsert" | "delete";
  /** The scalar fields the write set (every field of the row, for a delete). */
  fields: readonly string[];
  /** What the write set them to, as sent: for fields its answer leaves out (a narrow `select`). */
  values: Record<string, unknown>;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface UnitOfWork {
  tx: Tx;
  writes: Write[];
  /** Rows the unit has read or written, by model and id: a later write's row before it, without reading it again. */
  seen: Map<string, Record<string, unknown>>;
}

// On globalThis: Next.js bundles this module into several server chunks.
const shared = globalThis as unknown as { svcUnitOfWork?: AsyncLocalStorage<UnitOfWork> };
const scope = (shared.svcUnitOfWork ??= new AsyncLocalStorage<UnitOfWork>());

/** The transaction of the unit of work in progress, if any. */
export const openTransaction = (): Tx | undefined => scope.getStore()?.tx;

/** Runs `work` in one transaction (or in the one already open), committed when it returns. */
export function inOneTransaction<T>(work: (unit: UnitOfWork) => Promise<T>, client: BaseClient = baseClient()): Promise<T> {
  const open = scope.getStore();
  if (open) return work(open);
  const { DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS } = env();
  // A handler may send several statements, each allowed the statement timeout; the transaction as a
  // whole gets a few of them before Prisma ends it.
  return client.$transaction((tx) => {
    const unit: UnitOfWork = { tx, writes: [], seen: new Map() };
    return scope.run(unit, () => work(unit));
  }, {
    maxWait: DATABASE_CONNECT_TIMEOUT_MS,
    timeout: DATABASE_STATEMENT_TIMEOUT_MS * 4,
  });
}

const modelProperty = (model: string) => model.charAt(0).toLowerCase() + model.slice(1);

type Call = (...args: unknown[]) => Promise<unknown>;
type Delegate = Record<string, Call>;
type WriteArgs = { where?: object; data?: object; create?: object; update?: object };

const scalarFieldsByModel = new Map<string, string[]>();
function scalarFields(model: string): string[] {
  let fields = scalarFieldsByModel.get(model);
  if (!fields) scalarFieldsByModel.set(model, (fields = Object.keys((Prisma as unknown as Record<string, object>)[`${model}ScalarFieldEnum`] ?? {})));
  return fields;
}
const ROW_KEEPING = new Set(["id", "created_at", "updated_at", "created_by", "updated_by"]);

/** The scalar fields a write sets (relation writes and the row's own bookkeeping left out). */
function fieldsSet(model: string, ...data: (object | undefined)[]): string[] {
  const scalars = new Set(scalarFields(model));
  const keys = new Set(data.flatMap((d) => (d && typeof d === "object" ? Object.keys(d) : [])));
  return [...keys].filter((key) => scalars.has(key) && !ROW_KEEPING.has(key));
}

const asRow = (value: unknown) => (value && typeof value === "object" ? (value as Record<string, unknown>) : null);

const seenKey = (model: string, id: unknown) => `${model}:${String(id)}`;

/** Keeps a row read or written in the unit, when it is whole (every scalar field there). */
function remember(unit: UnitOfWork, model: string, value: unknown): void {
  const row = asRow(value);
  if (row && row.id !== undefined && scalarFields(model).every((field) => field in row)) unit.seen.set(seenKey(model, row.id), row);
}

/**
 * The row a write is about to change: as the unit last saw it when the write names it by id (the
 * service read it first, as most do), else read now.
 */
async function rowBefore(unit: UnitOfWork, delegate: Delegate, model: string, where: WriteArgs["where"]): Promise<Record<string, unknown> | null> {
  const id = (where as { id?: unknown } | undefined)?.id;
  const seen = typeof id === "string" ? unit.seen.get(seenKey(model, id)) : undefined;
  return seen ?? asRow(await delegate.findUnique!({ where }));
}

const valuesOf = (fields: readonly string[], ...data: (object | undefined)[]) =>
  Object.fromEntries(fields.map((field) => [field, data.map((d) => (d as Record<string, unknown> | undefined)?.[field]).find((v) => v !== undefined)]));

/** A single-row write, journalled with the row before it when it had one. */
async function journalled(unit: UnitOfWork, model: string, operation: string, args: WriteArgs): Promise<unknown> {
  const delegate = (unit.tx as unknown as Record<string, Delegate>)[modelProperty(model)]!;
  if (operation === "create") {
    const after = await delegate.create!(args);
    const fields = fieldsSet(model, args.data);
    unit.writes.push({ model, operation, fields, values: valuesOf(fields, args.data), before: null, after: asRow(after) });
    remember(unit, model, after);
    return after;
  }
  const before = await rowBefore(unit, delegate, model, args.where);
  const result = await delegate[operation]!(args);
  const fields = operation === "delete" ? scalarFields(model).filter((f) => !ROW_KEEPING.has(f)) : fieldsSet(model, args.data, args.create, args.update);
  const values = operation === "delete" ? {} : valuesOf(fields, args.data, args.update, args.create);
  unit.writes.push({ model, operation: operation as Write["operation"], fields, values, before, after: operation === "delete" ? null : asRow(result) });
  if (operation === "delete") unit.seen.delete(seenKey(model, before?.id));
  else remember(unit, model, result);
  return result;
}

const JOURNALLED = new Set(["create", "update", "upsert", "delete"]);
const SINGLE_READS = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow"]);

/**
 * A data layer as it is while a unit of work is open: its model and raw statements, once its own
 * rules have been applied (this extension is added last, so it runs last), go to the open
 * transaction; its `$transaction` runs the work right there, on this same client, so the work keeps
 * the data layer's rules and is part of the unit of work, committed or rolled back with it.
 */
export function joined<D extends { $extends: (extension: never) => unknown }>(db: D): D {
  const raw = (operation: string) => ({ args, query }: { args: unknown; query: (a: unknown) => Promise<unknown> }) => {
    const tx = scope.getStore()?.tx as unknown as Record<string, Call> | undefined;
    // The unsafe forms carry their SQL and values as an argument list.
    return tx ? tx[operation]!(...(Array.isArray(args) ? args : [args])) : query(args);
  };
  const joining: D = (db.$extends as (extension: object) => D)({
    name: "join-unit-of-work",
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }: { model: string; operation: string; args: unknown; query: (a: unknown) => Promise<unknown> }) {
          const unit = scope.getStore();
          if (!unit) return query(args);
          if (JOURNALLED.has(operation)) return journalled(unit, model, operation, args as WriteArgs);
          const result = (unit.tx as unknown as Record<string, Delegate>)[modelProperty(model)]![operation]!(args);
          if (!SINGLE_READS.has(operation)) return result;
          return result.then((row) => {
            remember(unit, model, row);
            return row;
          });
        },
      },
      $queryRaw: raw("$queryRaw"),
      $executeRaw: raw("$executeRaw"),
      $queryRawUnsafe: raw("$queryRawUnsafe"),
      $executeRawUnsafe: raw("$executeRawUnsafe"),
    },
    client: {
      async $transaction(work: unknown) {
        if (typeof work === "function") return (work as (tx: D) => Promise<unknown>)(joining);
        const results: unknown[] = [];
        for (const statement of work as Promise<unknown>[]) results.push(await statement);
        return results;
      },
    },
  });
  return joining;
}
