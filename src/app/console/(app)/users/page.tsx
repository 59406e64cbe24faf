import type { Metadata } from "next";
import { UsersScreen } from "@/components/identity/users-screen";
import { userListOptions } from "@/components/identity/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Users — svc console" };

export default async function UsersPage() {
  return prefetched(<UsersScreen />, userListOptions(trpc));
}
