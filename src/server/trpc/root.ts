import { createCallerFactory, createTRPCRouter } from "./init";
import { apiKeysRouter } from "./routers/api-keys";
import { usersRouter } from "./routers/users";

export const appRouter = createTRPCRouter({
  apiKeys: apiKeysRouter,
  users: usersRouter,
});

export type AppRouter = typeof appRouter;

/** Calls procedures in-process with a given context (server components and tests). */
export const createCaller = createCallerFactory(appRouter);
