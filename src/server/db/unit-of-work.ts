import "server-only";
import { Prisma } from "@/generated/prisma/client";
import { env } from "@/server/env";
import { baseClient, type BaseClient } from "./client";
import { dataLayer, type AuditName, type DataLayer } from "./data-layer";

// A unit of work: one transaction for a change and its audit event, so the two commit together or
// not at all. Whoever starts a change opens it (`inUnitOfWork`) and hands its data layers down to
// the services. It journals each row it writes (before and after), which is how the audit event
// says what changed. See docs/decisions/003-unit-of-work.md.

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
  /** The unit's transaction, begun by the first call. */
  transaction(): Promise<Tx>;
  /** Whether the transaction has begun (reads after that go through it, to see the unit's writes). */
  readonly begun: boolean;
  /** The database as `actor` sees it, on this unit's transaction. */
  dataLayer(actor: AuditName, options?: { includeDeleted?: boolean }): DataLayer;
  /** Runs `hook` once the unit has committed (never when it rolls back); a failing hook is ignored. */
  afterCommit(hook: () => void): void;
  writes: Write[];
  /** Rows the unit has read or written, by model and id: a later write's row before it, without reading it again. */
  seen: Map<string, Record<string, unknown>>;
}

/** A unit of work whose transaction begins when first asked for, and `end`, which commits or rolls it back. */
function openUnit(client: BaseClient): UnitOfWork & { end(failure?: { error: unknown }): Promise<void> } {
  const { DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS } = env();
  let begun: Promise<Tx> | undefined;
  let settled: Promise<unknown> | undefined;
  const committed: (() => void)[] = [];
  const layers = new Map<string, DataLayer>();
  let finish: (failure?: { error: unknown }) => void = () => {};
  const unit: UnitOfWork & { end(failure?: { error: unknown }): Promise<void> } = {
    transaction: () =>
      (begun ??= new Promise<Tx>((resolve, reject) => {
        // Prisma commits when the callback's promise resolves and rolls back when it rejects: the
        // callback hands the transaction out and waits for `end`.
        const done = new Promise<void>((ok, fail) => (finish = (failure) => (failure ? fail(failure.error) : ok())));
        // A handler may send several statements, each allowed the statement timeout; the transaction
        // as a whole gets a few of them before Prisma ends it.
        settled = client.$transaction(
          (tx) => {
            resolve(tx);
            return done;
          },
          { maxWait: DATABASE_CONNECT_TIMEOUT_MS, timeout: DATABASE_STATEMENT_TIMEOUT_MS * 4 },
        );
        // A transaction that could not begin fails the statement that asked for it.
        settled.catch(reject);
      })),
    get begun() {
      return begun !== undefined;
    },
    dataLayer(actor, options = {}) {
      const key = `${options.includeDeleted ? "all" : "live"}:${actor}`;
      let db = layers.get(key);
      if (!db) layers.set(key, (db = joined(dataLayer(actor, { ...options, client }), unit)));
      return db;
    },
    afterCommit(hook) {
      committed.push(hook);
    },
    writes: [],
    seen: new Map(),
    async end(failure) {
      if (failure) {
        finish(failure);
        await settled?.catch(() => {});
        return;
      }
      if (settled) {
        finish();
        await settled;
      }
      for (const hook of committed) {
        try {
          hook();
        } catch {
          // what follows a commit cannot undo it
        }
      }
    },
  };
  return unit;
}

/** Runs `work` in one transaction of its own, committed when it returns and rolled back when it throws. */
export async function inUnitOfWork<T>(
  work: (unit: UnitOfWork) => Promise<T>,
  client: BaseClient = baseClient(),
): Promise<T> {
  const unit = openUnit(client);
  let result: T;
  try {
    result = await work(unit);
  } catch (error) {
    await unit.end({ error });
    throw error;
  }
  await unit.end();
  return result;
}

const modelProperty = (model: string) => model.charAt(0).toLowerCase() + model.slice(1);

type Call = (...args: unknown[]) => Promise<unknown>;
type Delegate = Record<string, Call>;
type WriteArgs = { where?: object; data?: object; create?: object; update?: object };

const scalarFieldsByModel = new Map<string, string[]>();
function scalarFields(model: string): string[] {
  let fields = scalarFieldsByModel.get(model);
  if (!fields)
    scalarFieldsByModel.set(
      model,
      (fields = Object.keys((Prisma as unknown as Record<string, object>)[`${model}ScalarFieldEnum`] ?? {})),
    );
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
  if (row && row.id !== undefined && scalarFields(model).every((field) => field in row))
    unit.seen.set(seenKey(model, row.id), row);
}

/**
 * The row a write is about to change: as the unit last saw it when the write names it by id (the
 * service read it first, as most do), else read now.
 */
async function rowBefore(
  unit: UnitOfWork,
  delegate: Delegate,
  model: string,
  where: WriteArgs["where"],
): Promise<Record<string, unknown> | null> {
  const id = (where as { id?: unknown } | undefined)?.id;
  const seen = typeof id === "string" ? unit.seen.get(seenKey(model, id)) : undefined;
  return seen ?? asRow(await delegate.findUnique!({ where }));
}

const valuesOf = (fields: readonly string[], ...data: (object | undefined)[]) =>
  Object.fromEntries(
    fields.map((field) => [
      field,
      data.map((d) => (d as Record<string, unknown> | undefined)?.[field]).find((v) => v !== undefined),
    ]),
  );

/** A single-row write, journalled with the row before it when it had one. */
async function journalled(unit: UnitOfWork, model: string, operation: string, args: WriteArgs): Promise<unknown> {
  const delegate = delegateOf(await unit.transaction(), model);
  if (operation === "create") {
    const after = await delegate.create!(args);
    const fields = fieldsSet(model, args.data);
    unit.writes.push({
      model,
      operation,
      fields,
      values: valuesOf(fields, args.data),
      before: null,
      after: asRow(after),
    });
    remember(unit, model, after);
    return after;
  }
  const before = await rowBefore(unit, delegate, model, args.where);
  const result = await delegate[operation]!(args);
  const fields =
    operation === "delete"
      ? scalarFields(model).filter((f) => !ROW_KEEPING.has(f))
      : fieldsSet(model, args.data, args.create, args.update);
  const values = operation === "delete" ? {} : valuesOf(fields, args.data, args.update, args.create);
  unit.writes.push({
    model,
    operation: operation as Write["operation"],
    fields,
    values,
    before,
    after: operation === "delete" ? null : asRow(result),
  });
  if (operation === "delete") unit.seen.delete(seenKey(model, before?.id));
  else remember(unit, model, result);
  return result;
}

const delegateOf = (tx: Tx, model: string) => (tx as unknown as Record<string, Delegate>)[modelProperty(model)]!;

const JOURNALLED = new Set(["create", "update", "upsert", "delete"]);
const SINGLE_READS = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow"]);
const READS = new Set([...SINGLE_READS, "findMany", "count", "aggregate", "groupBy"]);

/**
 * `db` on the unit's transaction: its model and raw statements, once its own rules have been
 * applied (this extension is added last, so it runs last), go to the unit's transaction; its
 * `$transaction` runs the work right there, on this same client, so the work keeps the data layer's
 * rules and is part of the unit of work, committed or rolled back with it.
 */
function joined(db: DataLayer, unit: UnitOfWork): DataLayer {
  const raw =
    (operation: string) =>
    ({ args }: { args: unknown }) =>
      // The unsafe forms carry their SQL and values as an argument list.
      unit
        .transaction()
        .then((tx) => (tx as unknown as Record<string, Call>)[operation]!(...(Array.isArray(args) ? args : [args])));
  const joining: DataLayer = (db.$extends as unknown as (extension: object) => DataLayer)({
    name: "join-unit-of-work",
    query: {
      $allModels: {
        $allOperations({
          model,
          operation,
          args,
          query,
        }: {
          model: string;
          operation: string;
          args: unknown;
          query: (a: unknown) => Promise<unknown>;
        }) {
          if (JOURNALLED.has(operation)) return journalled(unit, model, operation, args as WriteArgs);
          // A read goes through the transaction once it has begun (to see the unit's writes), before
          // that on its own; any other statement (a write of many rows) begins it.
          const result =
            unit.begun || !READS.has(operation)
              ? unit.transaction().then((tx) => delegateOf(tx, model)[operation]!(args))
              : query(args);
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
        if (typeof work === "function") return (work as (tx: DataLayer) => Promise<unknown>)(joining);
        const results: unknown[] = [];
        for (const statement of work as Promise<unknown>[]) results.push(await statement);
        return results;
      },
    },
  });
  return joining;
}
