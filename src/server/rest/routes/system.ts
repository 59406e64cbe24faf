import { z } from "zod";
import { baseClient } from "@/server/db/client";
import { DomainError } from "@/server/errors";
import { defineRoute } from "../route";

const status = z.object({ status: z.literal("ok") });

export const systemRoutes = [
  defineRoute({
    method: "GET",
    path: "/api/health",
    operationId: "health",
    tag: "Operations",
    summary: "Liveness",
    description: "Answers without credentials and without touching the database.",
    access: "public",
    response: status,
    handler: async () => ({ status: "ok" as const }),
  }),
  defineRoute({
    method: "GET",
    path: "/api/ready",
    operationId: "ready",
    tag: "Operations",
    summary: "Readiness",
    description: "200 while the database answers; 503 with Retry-After otherwise.",
    access: "public",
    response: status,
    errors: ["unavailable"],
    handler: async () => {
      try {
        await baseClient().$queryRaw`SELECT 1`;
      } catch {
        throw new DomainError("unavailable", "The database does not answer.");
      }
      return { status: "ok" as const };
    },
  }),
];
