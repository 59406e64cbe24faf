"use client";

import { useActionState, useId } from "react";
import { inputClass, labelClass, primaryButton } from "@/components/ui/styles";
import { signInAction, type SignInState } from "../actions";

const initial: SignInState = { error: null, username: "" };

export function SignInForm({ notice }: { notice: string | null }) {
  const [state, action, pending] = useActionState(signInAction, initial);
  const errorId = useId();
  const error = state.error ?? notice;
  return (
    <form action={action} className="space-y-5" aria-describedby={error ? errorId : undefined}>
      {error && (
        <p
          id={errorId}
          role="alert"
          className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
        >
          {error}
        </p>
      )}
      <div>
        <label htmlFor="username" className={labelClass}>
          Username or email
        </label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          autoFocus
          defaultValue={state.username}
          className={`${inputClass} mt-1`}
        />
      </div>
      <div>
        <label htmlFor="password" className={labelClass}>
          Password
        </label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          className={`${inputClass} mt-1`}
        />
      </div>
      <button type="submit" disabled={pending} className={`${primaryButton} w-full`}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
