import "server-only";
import { z } from "zod";
import type { UserActor } from "@/server/auth/actor";
import { effectivePermissions } from "@/server/auth/authorize";
import { baseClient } from "@/server/db/client";
import { DomainError } from "@/server/errors";
import { defineOperation } from "./operation";

// Liveness, readiness, and who the caller is. REST only: the console has no use for them.

const status = z.object({ status: z.literal("ok") });

export const meSchema = z.object({
  user: z.object({ id: z.uuid(), username: z.string(), display_name: z.string().nullable() }),
  auth: z.enum(["api_key", "session"]),
  key: z.object({ id: z.uuid(), key_prefix: z.string(), expires_at: z.string().nullable() }).nullable(),
  permissions: z.array(z.string()).describe("Effective permissions held globally."),
  organizations: z.array(z.object({ id: z.uuid(), name: z.string(), permissions: z.array(z.string()) })),
});

export const systemOperations = {
  health: defineOperation({
    id: "health", method: "GET", path: "/api/health", console: false, tag: "Operations", summary: "Liveness",
    description: "Answers without credentials and without touching the database.",
    access: "public", response: status,
    handler: () => ({ status: "ok" as const }),
  }),
  ready: defineOperation({
    id: "ready", method: "GET", path: "/api/ready", console: false, tag: "Operations", summary: "Readiness",
    description: "200 while the database answers; 503 with Retry-After otherwise.",
    access: "public", response: status, errors: ["unavailable"],
    handler: async () => {
      try {
        await baseClient().$queryRaw`SELECT 1`;
      } catch {
        throw new DomainError("unavailable", "The database does not answer.");
      }
      return { status: "ok" as const };
    },
  }),
  me: defineOperation({
    id: "getMe", method: "GET", path: "/api/v1/me", console: false, tag: "Identity", summary: "Who am I, and what may I do",
    description: "For a key, the permissions are its scopes without dangerous ones, intersected with what its owner holds now.",
    access: "authenticated", response: meSchema,
    handler: ({ actor }) => {
      const user = actor as UserActor;
      const { global, organizations } = effectivePermissions(user);
      return {
        user: { id: user.userId, username: user.username, display_name: user.displayName },
        auth: user.kind === "api_key" ? ("api_key" as const) : ("session" as const),
        key: user.kind === "api_key" ? { id: user.key.id, key_prefix: user.key.prefix, expires_at: user.key.expiresAt?.toISOString() ?? null } : null,
        permissions: global,
        organizations,
      };
    },
  }),
};
