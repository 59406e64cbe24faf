"use client";

import { useId, useState, type ReactNode } from "react";
import { Dialog } from "./dialog";
import { InputRow } from "./fields";
import { primaryButton, secondaryButton } from "./styles";

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
    <InputRow
      id={id}
      label={label}
      button={
        <button type="button" onClick={copy} className={`${secondaryButton} whitespace-nowrap`}>
          {copyLabel}
        </button>
      }
      after={
        <p role="status" className="mt-1 min-h-5 text-sm text-slate-600 dark:text-slate-300">
          {copied === "yes" && "Copied to the clipboard."}
          {copied === "failed" && "Copying failed: select it and copy it yourself."}
        </p>
      }
    >
      <input
        id={id}
        readOnly
        value={value}
        onFocus={(event) => event.target.select()}
        spellCheck={false}
        className="block w-full min-w-0 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm dark:border-slate-700 dark:bg-slate-950"
      />
    </InputRow>
  );
}

/** The warning above a secret (or, `plural`, several) shown once. */
export function ShownOnceWarning({ what, plural = false }: { what: string; plural?: boolean }) {
  return (
    <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
      {plural
        ? `This is the only time the ${what} are shown. Copy them now and keep them somewhere safe: they will not be shown again, and they are not stored anywhere they could be shown from.`
        : `This is the only time the ${what} is shown. Copy it now and keep it somewhere safe: it will not be shown again, and it is not stored anywhere it could be shown from.`}
    </p>
  );
}

/** A row of the facts shown beside a secret. */
export function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt className="text-slate-500 dark:text-slate-400">{term}</dt>
      <dd className="wrap-anywhere">{children}</dd>
    </>
  );
}

interface ShownOnceDialogProps {
  /** The secret; null keeps the dialog closed. */
  secret: string | null;
  title: string;
  label: string;
  /** What the buttons call it: "Copy key", "I have copied the key". */
  noun: string;
  /** What the warning calls it (default: the noun). */
  what?: string;
  onClose: () => void;
  /** Facts about the secret (Fact rows). */
  facts?: ReactNode;
  children?: ReactNode;
}

/**
 * The one moment a secret is shown: the warning, the secret with its copy button, and what it belongs
 * to. Escape does not close it (one keystroke would lose the secret): only "I have copied the …" does.
 */
export function ShownOnceDialog({
  secret,
  title,
  label,
  noun,
  what = noun,
  onClose,
  facts,
  children,
}: ShownOnceDialogProps) {
  return (
    <Dialog open={secret !== null} onClose={onClose} title={title} alert dismissible={false}>
      {secret !== null && (
        <div className="space-y-4">
          <ShownOnceWarning what={what} />
          <SecretField label={label} value={secret} copyLabel={`Copy ${noun}`} />
          {facts && <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">{facts}</dl>}
          {children}
          <div className="flex justify-end">
            <button type="button" onClick={onClose} className={primaryButton}>
              I have copied the {noun}
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
