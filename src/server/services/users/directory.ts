import { auditName, type Actor } from "@/server/auth/actor";
import { dataLayer } from "@/server/db/data-layer";
import type { FindUsersInput, UserSummary } from "@/lib/schemas/users";

// Read-only lookups of users for pickers (the console's "show another user's keys"). The users
// service proper, with writes, comes with its own issue. Callers declare svc:system:users:read.

/** Users whose username, display name or email contains the query, by username. */
export async function findUsers(actor: Actor, input: FindUsersInput): Promise<UserSummary[]> {
  const contains = { contains: input.query, mode: "insensitive" as const };
  return dataLayer(auditName(actor)).user.findMany({
    where: { OR: [{ username: contains }, { display_name: contains }, { email: contains }] },
    orderBy: { username: "asc" },
    take: input.limit,
    select: { id: true, username: true, display_name: true },
  });
}
