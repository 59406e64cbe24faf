import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { z } from "zod";
import { UserDetailScreen } from "@/components/identity/user-detail-screen";
import {
  effectivePermissionsOptions,
  identitiesOptions,
  userGrantsOptions,
  userOptions,
  userOrganizationsOptions,
} from "@/components/identity/queries";
import { keyListInput, keyListOptions } from "@/components/api-keys/queries";
import { prefetched, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "User — svc console" };

interface Props {
  params: Promise<{ user_id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function UserPage({ params, searchParams }: Props) {
  const { user_id: userId } = await params;
  if (!z.uuid().safeParse(userId).success) notFound();
  const { created } = await searchParams;
  return prefetched(
    <UserDetailScreen userId={userId} justCreated={created === "1"} />,
    userOptions(trpc, userId),
    userOrganizationsOptions(trpc, userId),
    userGrantsOptions(trpc, userId),
    effectivePermissionsOptions(trpc, userId),
    identitiesOptions(trpc, userId),
    keyListOptions(trpc, keyListInput(userId, "all")),
  );
}
