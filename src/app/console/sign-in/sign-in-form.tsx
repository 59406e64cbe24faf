"use client";

import { useActionState, useId } from "react";
import { hintClass, inputClass, labelClass, linkButton, primaryButton } from "@/components/ui/styles";
import { cancelSecondFactorAction, signInAction, type SignInState } from "../actions";

export function SignInForm({ notice, step }: { notice: string | null; step: SignInState["step"] }) {
  const [state, action, pending] = useActionState(signInAction, { error: null, username: "", step });
  const errorId = useId();
  const error = state.error ?? (state.step === step ? notice : null);
  const alert = error && (
    <p
      id={errorId}
      role="alert"
      className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {error}
    </p>
  );
  if (state.step === "code") {
    return (
      <div className="space-y-4">
        <form action={action} className="space-y-5" aria-describedby={error ? errorId : undefined}>
          {alert}
          <div>
            <label htmlFor="code" className={labelClass}>
              Authentication code
            </label>
            <input
              id="code"
              name="code"
              autoComplete="one-time-code"
              required
              autoFocus
              aria-describedby="code-hint"
              className={`${inputClass} mt-1`}
            />
            <p id="code-hint" className={hintClass}>
              The 6-digit code of your authenticator app, or one of your recovery codes.
            </p>
          </div>
          <button type="submit" disabled={pending} className={`${primaryButton} w-full`}>
            {pending ? "Verifying…" : "Verify"}
          </button>
        </form>
        <form action={cancelSecondFactorAction}>
          <button type="submit" className={linkButton}>
            Use another account
          </button>
        </form>
      </div>
    );
  }
  return (
    <form action={action} className="space-y-5" aria-describedby={error ? errorId : undefined}>
      {alert}
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
