import "server-only";
import type pg from "pg";
import { auditName, type Actor } from "@/server/auth/actor";
import { baseClient, queryRows, type BaseClient } from "./client";
import { dataLayer, type DataLayer } from "./data-layer";
import { inUnitOfWork, type UnitOfWork } from "./unit-of-work";

// What a service is handed instead of reaching for the database itself: who acts, and the database
// as they see it — on a change's own transaction when the call changes something (a unit of work,
// opened by invoke() or the CLI), else on the pool.

export interface Context<A extends Actor = Actor> {
  actor: A;
  /** The database as the actor sees it: soft-deleted rows left out, created_by / updated_by filled. */
  db: DataLayer;
  /** The same database with soft-deleted rows in view: for sys_admin views and restores only. */
  includingDeleted(): DataLayer;
  /** Runs `hook` once the change commits, never if it rolls back; outside a change, at once. */
  afterCommit(hook: () => void): void;
  /**
   * Runs `work` in one transaction: the change's own in a change's context (`work` is then simply
   * part of it), else one of its own, committed when `work` returns.
   */
  transaction<T>(work: (ctx: Context<A>) => Promise<T>): Promise<T>;
  /** Rows of one SQL statement read on the pool without Prisma's work, for the hottest reads only (client.ts). */
  queryRows<T extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<T[]>;
  /** The same call's context with another actor writing (created_by / updated_by), in the same change. */
  actingAs<B extends Actor>(actor: B): Context<B>;
}

const runNow = (hook: () => void) => {
  try {
    hook();
  } catch {
    // as after a commit: what follows cannot undo it
  }
};

/** The context of a call that changes nothing (or whose writes each stand alone), on the pool. */
export function readContext<A extends Actor>(actor: A, client: BaseClient = baseClient()): Context<A> {
  const name = auditName(actor);
  return {
    actor,
    db: dataLayer(name, { client }),
    includingDeleted: () => dataLayer(name, { client, includeDeleted: true }),
    afterCommit: runNow,
    transaction: (work) => inUnitOfWork((unit) => work(changeContext(actor, unit, client)), client),
    queryRows: (sql, values) => queryRows(sql, values, client),
    actingAs: (other) => readContext(other, client),
  };
}

/** The context of a change: its database is the unit's transaction. */
export function changeContext<A extends Actor>(
  actor: A,
  unit: UnitOfWork,
  client: BaseClient = baseClient(),
): Context<A> {
  const name = auditName(actor);
  const ctx: Context<A> = {
    actor,
    db: unit.dataLayer(name),
    includingDeleted: () => unit.dataLayer(name, { includeDeleted: true }),
    afterCommit: (hook) => unit.afterCommit(hook),
    transaction: (work) => work(ctx),
    queryRows: (sql, values) => queryRows(sql, values, client),
    actingAs: (other) => changeContext(other, unit, client),
  };
  return ctx;
}
