"use client";

import Link from "next/link";
import { useState } from "react";
import { primaryButton, textLink } from "@/components/ui/styles";

// The button of the verification link's page: it calls the API without credentials (the token is
// the proof), and says what came of it. Every unusable link reads the same.

const CONFIRM = "/api/v1/email-verifications/confirm";

type State = { step: "ready" | "sending" } | { step: "done"; email: string } | { step: "failed"; message: string };

export function ConfirmEmail({ token }: { token: string }) {
  const [state, setState] = useState<State>({ step: "ready" });
  async function confirm() {
    setState({ step: "sending" });
    try {
      const answer = await fetch(CONFIRM, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token }),
      });
      const body = (await answer.json()) as { email?: string; detail?: string };
      if (answer.ok && body.email) setState({ step: "done", email: body.email });
      else if (answer.status === 404 || answer.status === 400)
        setState({
          step: "failed",
          message:
            "This link cannot be used: it has expired, was used already, or a newer one was sent. Ask for a new one from your account.",
        });
      else setState({ step: "failed", message: body.detail ?? "Something went wrong. Try again in a moment." });
    } catch {
      setState({ step: "failed", message: "The console could not be reached. Try again in a moment." });
    }
  }
  if (state.step === "done")
    return (
      <p className="mt-3 text-sm leading-6" role="status">
        <strong>{state.email}</strong> is verified.{" "}
        <Link href="/console/account" className={textLink}>
          Go to your account
        </Link>
      </p>
    );
  return (
    <>
      <p className="mt-3 text-sm leading-6 text-slate-600 dark:text-slate-300">
        Confirm that this email address is yours.
      </p>
      {state.step === "failed" && (
        <p role="alert" className="mt-3 text-sm font-medium text-red-700 dark:text-red-400">
          {state.message}
        </p>
      )}
      <button
        type="button"
        onClick={() => void confirm()}
        disabled={state.step === "sending"}
        className={`${primaryButton} mt-6`}
      >
        {state.step === "sending" ? "Verifying…" : "Verify my email"}
      </button>
    </>
  );
}
