import "server-only";
import { OPERATIONS } from "@/server/operations";
import type { AnyOperation } from "@/server/operations/operation";

// Every REST route: the operations that have a path. front-door.ts, which answers bad /api requests
// before Next.js, indexes them (the REST route finds each request's operation there too), and the
// OpenAPI document and the tests read this list.

export type RestOperation = AnyOperation & { path: string };

export const ROUTES: readonly RestOperation[] = OPERATIONS.filter((o): o is RestOperation => o.path !== null);
