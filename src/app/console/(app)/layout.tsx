import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { ConsoleShell, NoAccess } from "@/components/console/shell";
import { isSysAdmin } from "@/server/auth/authorize";
import { readContext } from "@/server/db/context";
import { listUserOrganizations } from "@/server/services/memberships/service";
import { TRPCReactProvider } from "@/trpc/react";
import { sessionActor } from "@/trpc/server";

export const metadata: Metadata = { title: "svc console" };

export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const actor = await sessionActor();
  if (!actor) redirect("/console/sign-in");
  const user = { username: actor.username, displayName: actor.displayName };
  if (!isSysAdmin(actor)) {
    const memberships = await listUserOrganizations(readContext(actor), actor.userId, { limit: 100 });
    // An organization whose enforced SSO this session did not sign in through, or whose directory
    // suspended them, is not theirs here.
    const reachable = memberships.data.filter(
      (membership) => !membership.suspended && !actor.ssoShutOut?.has(membership.org_id),
    );
    return <NoAccess user={user} organizations={reachable} />;
  }
  // The platform requires two-factor of sys_admins and this one has none: nothing else until it is set up.
  if (actor.mustSetUpTwoFactor) redirect("/console/two-factor-setup");
  return (
    <TRPCReactProvider>
      <ConsoleShell user={user}>{children}</ConsoleShell>
    </TRPCReactProvider>
  );
}
