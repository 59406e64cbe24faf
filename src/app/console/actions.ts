"use server";

import { AuthError } from "next-auth";
import { redirect } from "next/navigation";
import { enabledOAuthProviders } from "@/server/auth/oauth";
import { endSecondFactor, SecondFactorExpired, SecondFactorRequired } from "@/server/auth/second-factor";
import { signIn, signOut } from "@/server/session";
import { TooManySignInAttempts } from "@/server/auth/sign-in-throttle";

// The console's sign-in and sign-out, as server actions (Next checks that they come from this
// site). A successful sign-in answers with a redirect, which Next throws: only AuthError is caught.

export interface SignInState {
  error: string | null;
  /** What was typed, so a failed attempt does not make the user type it again. */
  username: string;
  /** "code": the password was right and the user has two-factor; no session exists yet. */
  step: "password" | "code";
}

const HOME = "/console/overview";

function waitText(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}

const tooMany = (error: TooManySignInAttempts) =>
  `Too many failed sign-ins. Wait ${waitText(error.retryAfterSeconds)}, then try again.`;

export async function signInAction(previous: SignInState, form: FormData): Promise<SignInState> {
  if (form.has("code")) return codeStep(previous, String(form.get("code") ?? ""));
  const username = String(form.get("username") ?? "");
  const password = String(form.get("password") ?? "");
  if (!username.trim() || !password) {
    return { error: "Enter your username or email and your password.", username, step: "password" };
  }
  try {
    await signIn("credentials", { username, password, redirectTo: HOME });
  } catch (error) {
    if (error instanceof SecondFactorRequired) return { error: null, username, step: "code" };
    if (error instanceof TooManySignInAttempts) return { error: tooMany(error), username, step: "password" };
    // The same words whether the account exists or not.
    if (error instanceof AuthError) return { error: "Wrong username or password.", username, step: "password" };
    throw error;
  }
  return { error: null, username, step: "password" };
}

/** The second step: a code of the authenticator app, or a recovery code, for the pending sign-in. */
async function codeStep(previous: SignInState, code: string): Promise<SignInState> {
  const state = { username: previous.username, step: "code" as const };
  if (!code.trim()) return { ...state, error: "Enter the code of your authenticator app, or a recovery code." };
  try {
    await signIn("credentials", { code, redirectTo: HOME });
  } catch (error) {
    if (error instanceof SecondFactorExpired)
      return { ...state, step: "password", error: "That took too long. Sign in again." };
    if (error instanceof TooManySignInAttempts) return { ...state, error: tooMany(error) };
    if (error instanceof AuthError) return { ...state, error: "Wrong code. Try the current one, or a recovery code." };
    throw error;
  }
  return { ...state, error: null };
}

/** "Use another account": forgets the sign-in waiting for its code. */
export async function cancelSecondFactorAction(): Promise<void> {
  await endSecondFactor();
  redirect("/console/sign-in");
}

/**
 * "Sign in with <provider>": Auth.js answers with a redirect to the provider, which the browser
 * follows as a navigation (a plain form POST to /api/auth/signin/<provider> would be a form whose
 * redirect leaves the site, which the CSP's form-action 'self' blocks). The provider sends the
 * browser back to Auth.js's callback, and from there to the console or to the sign-in page with
 * ?error=.
 */
export async function oauthSignInAction(form: FormData): Promise<void> {
  const provider = String(form.get("provider") ?? "");
  if (!enabledOAuthProviders().some((p) => p.id === provider)) redirect("/console/sign-in?error=Configuration");
  try {
    await signIn(provider, { redirectTo: "/console" });
  } catch (error) {
    if (error instanceof AuthError) redirect("/console/sign-in?error=OAuthSignin");
    throw error;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/console/sign-in" });
}
