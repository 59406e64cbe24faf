import "server-only";
import { OPERATION_GROUPS } from "@/server/operations";
import { createCallerFactory, createTRPCRouter, proceduresOf } from "./init";

// The console's tRPC router: one sub-router per group of operations (operations/index.ts).

const { system: _restOnly, ...consoleGroups } = OPERATION_GROUPS;

export const appRouter = createTRPCRouter(
  Object.fromEntries(
    Object.entries(consoleGroups).map(([name, group]) => [name, createTRPCRouter(proceduresOf(group))]),
  ) as {
    [K in keyof typeof consoleGroups]: ReturnType<
      typeof createTRPCRouter<ReturnType<typeof proceduresOf<(typeof consoleGroups)[K]>>>
    >;
  },
);

export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a given context (server components and tests). */
export const createCaller = createCallerFactory(appRouter);
