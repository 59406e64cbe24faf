import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell, NoAccess } from "@/components/console/shell";
import { isSysAdmin } from "@/server/auth/authorize";
import { TRPCReactProvider } from "@/trpc/react";
import { sessionActor } from "@/trpc/server";

export const metadata: Metadata = { title: "svc console" };

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const actor = await sessionActor();
  if (!actor) redirect("/console/sign-in");
  const user = { username: actor.username, displayName: actor.displayName };
  if (!isSysAdmin(actor)) return <NoAccess user={user} />;
  // The platform requires two-factor of sys_admins and this one has none: nothing else until it is set up.
  if (actor.mustSetUpTwoFactor) redirect("/console/two-factor-setup");
  return (
    <TRPCReactProvider>
      <ConsoleShell user={user}>{children}</ConsoleShell>
    </TRPCReactProvider>
  );
}
