"use client";

import { useMutation } from "@tanstack/react-query";
import { Notice } from "@/components/ui/states";
import { secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";

// The account page's word on the user's email: nothing once verified; otherwise a button that
// emails a link to it, and then where to look.

export function EmailVerificationBanner({ email, verified }: { email: string | null; verified: boolean }) {
  const trpc = useTRPC();
  const send = useMutation(trpc.account.sendEmailVerification.mutationOptions());
  if (!email || verified) return null;
  return (
    <div
      role="status"
      data-testid="email-verification"
      className="mt-4 rounded-md border border-amber-300 bg-amber-50 p-4 text-sm dark:border-amber-800 dark:bg-amber-950"
    >
      {send.isSuccess ? (
        <p>
          Check your inbox: a link was sent to <strong>{send.data.email}</strong>. It works once, for 24 hours.
        </p>
      ) : (
        <div className="flex flex-wrap items-center justify-between gap-3">
          <p>
            Your email <strong>{email}</strong> is not verified.
          </p>
          <button type="button" onClick={() => send.mutate()} disabled={send.isPending} className={secondaryButton}>
            {send.isPending ? "Sending…" : "Send a verification link"}
          </button>
        </div>
      )}
      {send.error && <Notice text={messageOf(send.error)} error />}
    </div>
  );
}
