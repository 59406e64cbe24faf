"use client";

import { useId, useState } from "react";
import { labelClass, secondaryButton } from "./styles";

/** A secret shown once: read-only, selected on focus, with a copy button. */
export function SecretField({ label, value, copyLabel }: { label: string; value: string; copyLabel: string }) {
  const id = useId();
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }

  return (
    <div>
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <div className="mt-1 flex gap-2">
        <input
          id={id}
          readOnly
          value={value}
          onFocus={(event) => event.target.select()}
          spellCheck={false}
          className="block w-full min-w-0 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm dark:border-slate-700 dark:bg-slate-950"
        />
        <button type="button" onClick={copy} className={`${secondaryButton} whitespace-nowrap`}>
          {copyLabel}
        </button>
      </div>
      <p role="status" className="mt-1 min-h-5 text-sm text-slate-600 dark:text-slate-300">
        {copied === "yes" && "Copied to the clipboard."}
        {copied === "failed" && "Copying failed: select it and copy it yourself."}
      </p>
    </div>
  );
}

/** The warning above a secret shown once. */
export function ShownOnceWarning({ what }: { what: string }) {
  return (
    <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
      This is the only time the {what} is shown. Copy it now and keep it somewhere safe: it is not stored anywhere it could be
      shown again.
    </p>
  );
}
