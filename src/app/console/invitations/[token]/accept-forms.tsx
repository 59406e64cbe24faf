"use client";

import { useState, type FormEvent } from "react";
import Link from "next/link";
import { hintClass, inputClass, labelClass, primaryButton, textLink } from "@/components/ui/styles";

// The two doors of an invitation, called over REST (the console's tRPC is for sys_admins; an
// invitee is anyone). Refusals are shown in the words the server answered with.

interface Joined {
  organization_name: string;
  username: string;
}

async function post(path: string, body: object): Promise<Joined> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = (await response.json().catch(() => ({}))) as Joined & {
    detail?: string;
    errors?: { path: string; message: string }[];
  };
  if (!response.ok) {
    const fields = answer.errors?.map((e) => `${e.path || "input"} ${e.message}`).join("; ");
    throw new Error([answer.detail ?? "Something went wrong. Try again.", fields].filter(Boolean).join(" "));
  }
  return answer;
}

function Alert({ children }: { children: string }) {
  return (
    <p
      role="alert"
      className="rounded-md border border-red-200 bg-red-50 px-3 py-2 font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {children}
    </p>
  );
}

function Welcome({ joined, signIn }: { joined: Joined; signIn?: boolean }) {
  return (
    <div role="status" className="space-y-2">
      <p className="font-medium">
        You joined {joined.organization_name} as {joined.username}.
      </p>
      {signIn && (
        <p>
          <a href="/console/sign-in" className="font-medium text-brand-600 underline-offset-2 hover:underline">
            Sign in
          </a>{" "}
          with your new account.
        </p>
      )}
    </div>
  );
}

export function AcceptInvitation({ token, username }: { token: string; username: string }) {
  const [joined, setJoined] = useState<Joined | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  if (joined) return <Welcome joined={joined} />;
  async function accept() {
    setPending(true);
    setError(null);
    try {
      setJoined(await post("/api/v1/invitations/accept", { token }));
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setPending(false);
    }
  }
  return (
    <>
      <p>You are signed in as {username}.</p>
      {error && <Alert>{error}</Alert>}
      <button type="button" className={`${primaryButton} w-full`} disabled={pending} onClick={() => void accept()}>
        {pending ? "Accepting…" : "Accept invitation"}
      </button>
    </>
  );
}

export function SignUpWithInvitation({ token, email }: { token: string; email: string }) {
  const [joined, setJoined] = useState<Joined | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  if (joined) return <Welcome joined={joined} signIn />;
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      setJoined(
        await post("/api/v1/invitations/sign-up", {
          token,
          username: String(form.get("username") ?? ""),
          password: String(form.get("password") ?? ""),
        }),
      );
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setPending(false);
    }
  }
  return (
    <>
      <p>
        Have an account with this address?{" "}
        <Link href="/console/sign-in" className={textLink}>
          Sign in
        </Link>
        , then open this link again.
      </p>
      <form onSubmit={(e) => void submit(e)} className="space-y-4 border-t border-slate-200 pt-4 dark:border-slate-800">
        <h2 className="font-semibold">New here? Create an account</h2>
        {error && <Alert>{error}</Alert>}
        <p className={hintClass}>Your email will be {email}.</p>
        <div>
          <label htmlFor="username" className={labelClass}>
            Username
          </label>
          <input id="username" name="username" required autoComplete="username" className={`${inputClass} mt-1`} />
        </div>
        <div>
          <label htmlFor="password" className={labelClass}>
            Password
          </label>
          <input
            id="password"
            name="password"
            type="password"
            required
            minLength={12}
            autoComplete="new-password"
            aria-describedby="password-hint"
            className={`${inputClass} mt-1`}
          />
          <p id="password-hint" className={hintClass}>
            At least 12 characters.
          </p>
        </div>
        <button type="submit" disabled={pending} className={`${primaryButton} w-full`}>
          {pending ? "Creating…" : "Create account and join"}
        </button>
      </form>
    </>
  );
}
