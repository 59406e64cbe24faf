import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { Prisma } from "@/generated/prisma/client";
import { env } from "@/server/env";
import type pg from "pg";
import { baseClient, queryRows, withTransactionConnection, type BaseClient } from "./client";

// One transaction for a whole unit of work (an operation's change and its audit event), without
// the services passing it around: while `inOneTransaction` runs, every write the data layer sends —
// and every raw statement, and every read after the first write — goes through that one
// interactive transaction, found in async context. Outside one, nothing changes. The unit keeps a
// journal of the rows it wrote (each single-row write with the row before and after), from which
// the audit trail tells what changed.
//
// The transaction begins at the unit's first write or raw statement (raw SQL may lock rows), not
// before: reads ahead of it run on the pool as they would alone, side by side when the service sends
// them so, where one transaction's connection would take them one at a time. Under PostgreSQL's READ
// COMMITTED each statement sees what was committed when it started, in a transaction or not, so a
// read before the first write sees what it would have seen inside.

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
  /**
   * A statement of the unit's own (its audit event), sent straight on its connection when the work
   * is done, just before its COMMIT: should it fail, nothing of the unit is kept and its failure is
   * the unit's.
   */
  atCommit(sql: string, values: unknown[]): void;
  /** Runs `hook` once the unit has committed (never when it rolls back); a failing hook is ignored. */
  afterCommit(hook: () => void): void;
  writes: Write[];
  /** Rows the unit has read or written, by model and id: a later write's row before it, without reading it again. */
  seen: Map<string, Record<string, unknown>>;
}

// On globalThis: Next.js bundles this module into several server chunks.
const shared = globalThis as unknown as { svcUnitOfWork?: AsyncLocalStorage<UnitOfWork> };
const scope = (shared.svcUnitOfWork ??= new AsyncLocalStorage<UnitOfWork>());

/** Whether a unit of work is in progress here. */
export const inUnitOfWork = (): boolean => scope.getStore() !== undefined;

/** A unit of work whose transaction begins when first asked for, and `end`, which commits or rolls it back. */
function openUnit(client: BaseClient): UnitOfWork & { end(failure?: { error: unknown }): Promise<void> } {
  const { DATABASE_CONNECT_TIMEOUT_MS, DATABASE_STATEMENT_TIMEOUT_MS } = env();
  let begun: Promise<Tx> | undefined;
  let connection: pg.ClientBase | undefined;
  let settled: Promise<unknown> | undefined;
  const lastStatements: { sql: string; values: unknown[] }[] = [];
  const committed: (() => void)[] = [];
  const runCommitted = () => {
    for (const hook of committed) {
      try {
        hook();
      } catch {
        // what follows a commit cannot undo it
      }
    }
  };
  let finish: (failure?: { error: unknown }) => void = () => {};
  const transaction = () =>
    (begun ??= new Promise<Tx>((resolve, reject) => {
      // Prisma commits when the callback's promise resolves and rolls back when it rejects: the
      // callback hands the transaction out and waits for `end`.
      const done = new Promise<void>((ok, fail) => (finish = (failure) => (failure ? fail(failure.error) : ok())));
      // A handler may send several statements, each allowed the statement timeout; the transaction
      // as a whole gets a few of them before Prisma ends it.
      settled = withTransactionConnection(
        (taken) => (connection = taken),
        () =>
          client.$transaction(
            (tx) => {
              resolve(tx);
              return done;
            },
            { maxWait: DATABASE_CONNECT_TIMEOUT_MS, timeout: DATABASE_STATEMENT_TIMEOUT_MS * 4 },
          ),
      );
      // A transaction that could not begin fails the statement that asked for it.
      settled.catch(reject);
    }));
  return {
    transaction,
    get begun() {
      return begun !== undefined;
    },
    atCommit(sql, values) {
      lastStatements.push({ sql, values });
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
      const sent: Promise<unknown>[] = [];
      if (lastStatements.length > 0) {
        await transaction();
        try {
          if (!connection) throw new Error("the unit's transaction began without handing over its connection");
          // On a pipelined connection they go out without waiting, the COMMIT right behind them: one
          // round trip for all. Should one fail there, PostgreSQL ends the transaction with a
          // rollback at that COMMIT. Elsewhere each is answered before the next is sent.
          const pipelined = (connection as { pipeline?: boolean }).pipeline === true;
          for (const { sql, values } of lastStatements) {
            const statement = queryRows(sql, values, client, connection);
            if (pipelined) sent.push(statement);
            else await statement;
          }
        } catch (error) {
          finish({ error });
          await settled?.catch(() => {});
          throw error;
        }
      }
      if (!settled) return runCommitted();
      finish();
      const outcomes = await Promise.allSettled(sent);
      await settled;
      const failed = outcomes.find((outcome) => outcome.status === "rejected");
      if (failed) throw failed.reason;
      runCommitted();
    },
  };
}

/** Runs `work` in one transaction (or in the one already open), committed when it returns. */
export function inOneTransaction<T>(
  work: (unit: UnitOfWork) => Promise<T>,
  client: BaseClient = baseClient(),
): Promise<T> {
  const open = scope.getStore();
  if (open) return work(open);
  const unit = openUnit(client);
  return scope.run(unit, async () => {
    let result: T;
    try {
      result = await work(unit);
    } catch (error) {
      await unit.end({ error });
      throw error;
    }
    await unit.end();
    return result;
  });
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
 * A data layer as it is while a unit of work is open: its model and raw statements, once its own
 * rules have been applied (this extension is added last, so it runs last), go to the open
 * transaction; its `$transaction` runs the work right there, on this same client, so the work keeps
 * the data layer's rules and is part of the unit of work, committed or rolled back with it.
 */
export function joined<D extends { $extends: (extension: never) => unknown }>(db: D): D {
  const raw =
    (operation: string) =>
    ({ args, query }: { args: unknown; query: (a: unknown) => Promise<unknown> }) => {
      const unit = scope.getStore();
      if (!unit) return query(args);
      // The unsafe forms carry their SQL and values as an argument list.
      return unit
        .transaction()
        .then((tx) => (tx as unknown as Record<string, Call>)[operation]!(...(Array.isArray(args) ? args : [args])));
    };
  const joining: D = (db.$extends as (extension: object) => D)({
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
          const unit = scope.getStore();
          if (!unit) return query(args);
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
        if (typeof work === "function") return (work as (tx: D) => Promise<unknown>)(joining);
        const results: unknown[] = [];
        for (const statement of work as Promise<unknown>[]) results.push(await statement);
        return results;
      },
    },
  });
  return joining;
}
