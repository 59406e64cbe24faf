import type { Metadata } from "next";
import { ConfirmEmail } from "@/components/account/confirm-email";

export const metadata: Metadata = { title: "Verify your email — svc console", referrer: "no-referrer" };

interface Props {
  params: Promise<{ token: string }>;
}

/**
 * Where the link of a verification email leads, signed in or not. Opening it changes nothing (mail
 * scanners open links): the button confirms.
 */
export default async function VerifyEmailPage({ params }: Props) {
  const { token } = await params;
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-lg rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold tracking-tight">Verify your email</h1>
        <ConfirmEmail token={token} />
      </div>
    </main>
  );
}
