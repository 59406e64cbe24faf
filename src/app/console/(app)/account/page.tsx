import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AccountScreen } from "@/components/account/account-screen";
import { userOptions } from "@/components/identity/queries";
import { enabledOAuthProviders } from "@/server/auth/oauth";
import { prefetched, sessionActor, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Your account — svc console" };

interface Props {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}

export default async function AccountPage({ searchParams }: Props) {
  const actor = await sessionActor();
  if (!actor) redirect("/console/sign-in");
  const { linked, error } = await searchParams;
  const outcome = {
    linked: typeof linked === "string" ? linked : undefined,
    error: typeof error === "string" ? error : undefined,
  };
  return prefetched(
    <AccountScreen userId={actor.userId} providers={enabledOAuthProviders()} outcome={outcome} />,
    userOptions(trpc, actor.userId),
  );
}
