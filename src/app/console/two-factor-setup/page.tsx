import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { RequiredTwoFactorSetup } from "@/components/account/required-setup";
import { SignOutButton } from "@/components/console/sign-out-button";
import { TRPCReactProvider } from "@/trpc/react";
import { sessionActor } from "@/trpc/server";

export const metadata: Metadata = { title: "Set up two-factor authentication — svc console" };

/**
 * Where a sys_admin without two-factor lands while the platform requires it
 * (auth.require_mfa_for_sys_admins): the session can do nothing else until it is set up.
 */
export default async function TwoFactorSetupPage() {
  const actor = await sessionActor();
  if (!actor) redirect("/console/sign-in");
  if (!actor.mustSetUpTwoFactor) redirect("/console/account");
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-lg rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold tracking-tight">Two-factor authentication required</h1>
        <p className="mt-3 text-sm leading-6 text-slate-600 dark:text-slate-300">
          You are signed in as <strong className="font-semibold">{actor.username}</strong>. This platform requires
          sys_admins to sign in with two-factor authentication: set it up to continue.
        </p>
        <TRPCReactProvider>
          <RequiredTwoFactorSetup />
        </TRPCReactProvider>
        <div className="mt-6 flex justify-end">
          <SignOutButton />
        </div>
      </div>
    </main>
  );
}
