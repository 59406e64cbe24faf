import "server-only";
import type { Actor } from "@/server/auth/actor";
import type { AnyOperation } from "./operation";

// What an operation's audit event names, read off its declaration: the target is the resource it
// created (its `created` id) or the one its path ends on (the last path parameter), its type the
// collection segment before it, singular; a path under /me targets the caller.

export interface Target {
  type: string | null;
  id: string | null;
}

const singular = (segment: string) => segment.replace(/-/g, "_").replace(/ies$/, "y").replace(/s$/, "");

export function targetOf(
  operation: AnyOperation,
  actor: Actor | null,
  params: Record<string, unknown>,
  result: unknown,
): Target {
  const segments = operation.path?.split("/").filter(Boolean) ?? [];
  if (operation.created && result !== undefined) {
    const collection = segments.filter((s) => !s.startsWith("{")).at(-1);
    return { type: collection ? singular(collection) : null, id: operation.created(result as never) };
  }
  const last = segments.findLastIndex((s) => s.startsWith("{"));
  if (last > 0) {
    const value = params[segments[last]!.slice(1, -1)];
    return { type: singular(segments[last - 1]!), id: value === undefined ? null : String(value) };
  }
  if (segments.includes("me") && actor && actor.kind !== "system") return { type: "user", id: actor.userId };
  return { type: null, id: null };
}

/** The organization an event belongs to: the one in its path, or the organization it targets. */
export const orgOf = (params: Record<string, unknown>, target: Target): string | null =>
  typeof params.org_id === "string" ? params.org_id : target.type === "organization" ? target.id : null;
