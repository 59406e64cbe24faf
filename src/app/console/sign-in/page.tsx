import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { enabledOAuthProviders } from "@/server/auth/oauth";
import { pendingSecondFactor } from "@/server/auth/second-factor";
import { currentSessionActor } from "@/server/session";
import { ssoRefusalOf } from "@/components/tenancy/sso-refusal";
import { OAuthSignIn } from "./oauth-sign-in";
import { SignInForm } from "./sign-in-form";
import { SsoSignIn } from "./sso-sign-in";

export const metadata: Metadata = { title: "Sign in — svc console" };

/** What parts the password form from the other ways to sign in (OAuth providers, SSO). */
function OrDivider() {
  return (
    <div
      className="mt-6 mb-4 flex items-center gap-3 text-xs text-slate-500 uppercase dark:text-slate-400"
      aria-hidden="true"
    >
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      or
      <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
    </div>
  );
}

/** Auth.js sends errors of its own endpoints here (?error=...&code=...). */
function noticeFor(
  error: string | string[] | undefined,
  code: string | string[] | undefined,
  step: "password" | "code",
): string | null {
  if (error === undefined || code === "second_factor") return null;
  if (code === "second_factor_expired") return "That took too long. Sign in again.";
  if (error === "CredentialsSignin")
    return step === "code" ? "Wrong code. Try the current one, or a recovery code." : "Wrong username or password.";
  // A sign-in through a provider whose account reaches none of our users (oauth.ts).
  if (error === "AccessDenied") {
    return "No user here is linked to that account, or has the email the provider verified for it. Ask a sys_admin to create your user with that email, then sign in again.";
  }
  return "Signing in failed. Try again.";
}

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  if (await currentSessionActor()) redirect("/console/overview");
  const query = await searchParams;
  const { error, code } = query;
  // A refused SSO sign-in comes back here with its reason and an id to quote.
  const ssoRefusal = ssoRefusalOf(query);
  // A first factor passed (a password, or an external account) and a code is due.
  const step = (await pendingSecondFactor()) ? "code" : "password";
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-sm">
        <Link href="/" className="mx-auto flex w-fit items-center gap-2 font-semibold tracking-tight">
          {/* eslint-disable-next-line @next/next/no-img-element -- tiny local SVG, no optimisation needed */}
          <img src="/favicon.svg" alt="" width={28} height={28} />
          svc
        </Link>
        <div className="mt-6 rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
          <h1 className="text-xl font-semibold tracking-tight">Sign in to the console</h1>
          <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-300">
            For platform administrators (sys_admins), and the people of organizations that sign in through their own
            identity provider.
          </p>
          <SignInForm notice={ssoRefusal ?? noticeFor(error, code, step)} step={step} />
          {step === "password" && (
            <>
              <OrDivider />
              <OAuthSignIn providers={enabledOAuthProviders()} />
              <SsoSignIn open={ssoRefusal !== null} />
            </>
          )}
        </div>
      </div>
    </main>
  );
}
