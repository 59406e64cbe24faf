import "server-only";
import { OPERATIONS } from "@/server/operations";
import type { AnyOperation } from "@/server/operations/operation";

// Every REST route: the operations that have a path. The handlers, the OpenAPI document and the
// tests read this list.

export type RestOperation = AnyOperation & { path: string };

export const ROUTES: readonly RestOperation[] = OPERATIONS.filter((o): o is RestOperation => o.path !== null);

export const routesAt = (path: string): RestOperation[] => ROUTES.filter((r) => r.path === path);
