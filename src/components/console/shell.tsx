import Link from "next/link";
import type { ReactNode } from "react";
import { secondaryButton } from "@/components/ui/styles";
import { ConsoleNav } from "./nav";
import { SignOutButton } from "./sign-out-button";

export interface SignedInUser {
  username: string;
  displayName: string | null;
}

function Brand() {
  return (
    <Link href="/console/overview" className="flex items-center gap-2 font-semibold tracking-tight">
      {/* eslint-disable-next-line @next/next/no-img-element -- tiny local SVG, no optimisation needed */}
      <img src="/favicon.svg" alt="" width={24} height={24} />
      svc console
    </Link>
  );
}

function SignedInAs({ user }: { user: SignedInUser }) {
  return (
    <p className="text-sm text-slate-600 dark:text-slate-300">
      Signed in as{" "}
      <strong className="font-semibold text-slate-900 dark:text-white">{user.displayName ?? user.username}</strong>
      {user.displayName && user.displayName !== user.username && <span> ({user.username})</span>}
    </p>
  );
}

/** The signed-in console: navigation, who is signed in with sign-out, and the section's content. */
export function ConsoleShell({ user, children }: { user: SignedInUser; children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col md:flex-row">
      <a
        href="#content"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-10 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:shadow dark:focus:bg-slate-900"
      >
        Skip to content
      </a>
      <aside className="border-b border-slate-200 bg-white px-4 py-4 md:w-60 md:shrink-0 md:border-r md:border-b-0 dark:border-slate-800 dark:bg-slate-900">
        <div className="mb-4 px-3">
          <Brand />
        </div>
        <ConsoleNav />
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="flex flex-wrap items-center justify-end gap-4 border-b border-slate-200 bg-white px-6 py-3 dark:border-slate-800 dark:bg-slate-900">
          <SignedInAs user={user} />
          <Link href="/console/account" className={secondaryButton}>
            Your account
          </Link>
          <SignOutButton />
        </header>
        <main id="content" tabIndex={-1} className="flex-1 px-6 py-8 focus:outline-none">
          <div className="mx-auto max-w-6xl">{children}</div>
        </main>
      </div>
    </div>
  );
}

/** An organization the signed-in user belongs to, with their org roles there. */
export interface Membership {
  org_id: string;
  name: string;
  display_name: string | null;
  roles: readonly { name: string }[];
}

/**
 * What a signed-in user who is not a sys_admin sees instead of the console: the organizations they
 * belong to (where an invitation or their email's domain brought them), and who can grant access.
 */
export function NoAccess({ user, organizations }: { user: SignedInUser; organizations: readonly Membership[] }) {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold tracking-tight">No access to the console</h1>
        <p className="mt-3 text-sm leading-6 text-slate-600 dark:text-slate-300">
          You are signed in as <strong className="font-semibold">{user.username}</strong>, but the console is only for
          platform administrators (sys_admins). If you need access, ask a sys_admin of this platform to grant it.
        </p>
        <h2 className="mt-6 text-sm font-semibold">Your organizations</h2>
        {organizations.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-300">You do not belong to any organization yet.</p>
        ) : (
          <ul aria-label="Your organizations" className="mt-2 space-y-1 text-sm">
            {organizations.map((org) => (
              <li key={org.org_id}>
                <strong className="font-semibold">{org.display_name ?? org.name}</strong>
                <span className="text-slate-600 dark:text-slate-300">
                  {" "}
                  — {org.roles.length > 0 ? org.roles.map((role) => role.name).join(", ") : "no roles"}
                </span>
              </li>
            ))}
          </ul>
        )}
        <div className="mt-6 flex items-center justify-between gap-4">
          <Link
            href="/"
            className="text-sm font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-300"
          >
            Back to the home page
          </Link>
          <SignOutButton />
        </div>
      </div>
    </main>
  );
}
