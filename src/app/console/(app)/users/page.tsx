import type { Metadata } from "next";
import { UsersScreen } from "@/components/identity/users-screen";
import { userListOptions } from "@/components/identity/queries";
import { getQueryClient, HydrateClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Users — svc console" };

export default async function UsersPage() {
  await getQueryClient().prefetchInfiniteQuery(userListOptions(trpc));
  return (
    <HydrateClient>
      <UsersScreen />
    </HydrateClient>
  );
}
