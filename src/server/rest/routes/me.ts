import { z } from "zod";
import type { UserActor } from "@/server/auth/actor";
import { effectivePermissions } from "@/server/auth/authorize";
import { defineRoute } from "../route";

export const meSchema = z.object({
  user: z.object({ id: z.uuid(), username: z.string(), display_name: z.string().nullable() }),
  auth: z.enum(["api_key", "session"]),
  key: z.object({ id: z.uuid(), key_prefix: z.string(), expires_at: z.string().nullable() }).nullable(),
  permissions: z.array(z.string()).describe("Effective permissions held globally."),
  organizations: z.array(z.object({ id: z.uuid(), name: z.string(), permissions: z.array(z.string()) })),
});

export const meRoutes = [
  defineRoute({
    method: "GET",
    path: "/api/v1/me",
    operationId: "getMe",
    tag: "Identity",
    summary: "Who am I, and what may I do",
    description: "Any valid API key or console session. For a key, the permissions are its scopes without dangerous ones, intersected with what its owner holds now.",
    access: "authenticated",
    response: meSchema,
    handler: async ({ actor }) => {
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
];
