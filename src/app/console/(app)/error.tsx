"use client";

import { secondaryButton } from "@/components/ui/styles";

export default function ConsoleError({ error, retry }: { error: unknown; retry: () => void }) {
  const digest = error instanceof Error && "digest" in error ? String(error.digest) : null;
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-6 dark:border-red-900 dark:bg-red-950">
      <h1 className="text-lg font-semibold text-red-900 dark:text-red-100">This page could not be shown</h1>
      <p className="mt-2 text-sm text-red-800 dark:text-red-200">
        Something went wrong on our side. Try again; if it keeps happening, tell your operator
        {digest ? (
          <>
            {" "}
            and quote the reference <code className="font-mono">{digest}</code>
          </>
        ) : null}
        .
      </p>
      <button type="button" onClick={retry} className={`${secondaryButton} mt-4`}>
        Try again
      </button>
    </div>
  );
}
