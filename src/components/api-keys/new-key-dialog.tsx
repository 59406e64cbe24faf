"use client";

import { useId, useState } from "react";
import type { CreatedApiKey } from "@/lib/schemas/api-keys";
import { Dialog } from "@/components/ui/dialog";
import { labelClass, primaryButton, secondaryButton } from "@/components/ui/styles";
import { formatTimestamp } from "./format";

// The one moment the raw key is shown: copy it now, it is not stored anywhere to show again.

export function NewKeyDialog({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  return (
    <Dialog open={created !== null} onClose={onClose} title="Copy your new API key" alert>
      {created && <NewKey created={created} onClose={onClose} />}
    </Dialog>
  );
}

function ScopeList({ scopes }: { scopes: string[] }) {
  return (
    <ul className="flex flex-wrap gap-1">
      {scopes.map((scope) => (
        <li key={scope}>
          <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs dark:bg-slate-800">{scope}</code>
        </li>
      ))}
    </ul>
  );
}

function NewKey({ created, onClose }: { created: CreatedApiKey; onClose: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const dropped = created.scopes.filter((s) => !created.effective_scopes.includes(s));

  async function copy() {
    try {
      await navigator.clipboard.writeText(created.raw_key);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }

  return (
    <div className="space-y-4">
      <p className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm font-medium text-amber-900 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-100">
        This is the only time the key is shown. Copy it now and keep it somewhere safe: it will not be shown again, and
        if it is lost you will have to create a new one.
      </p>
      <div>
        <label htmlFor={id} className={labelClass}>
          New API key
        </label>
        <div className="mt-1 flex gap-2">
          <input
            id={id}
            readOnly
            value={created.raw_key}
            onFocus={(event) => event.target.select()}
            spellCheck={false}
            className="block w-full min-w-0 rounded-md border border-slate-300 bg-slate-50 px-3 py-2 font-mono text-sm dark:border-slate-700 dark:bg-slate-950"
          />
          <button type="button" onClick={copy} className={`${secondaryButton} whitespace-nowrap`}>
            Copy key
          </button>
        </div>
        <p role="status" className="mt-1 min-h-5 text-sm text-slate-600 dark:text-slate-300">
          {copied === "yes" && "Copied to the clipboard."}
          {copied === "failed" && "Copying failed: select the key and copy it yourself."}
        </p>
      </div>
      <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-500 dark:text-slate-400">Name</dt>
        <dd className="break-all">{created.name}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Send it as</dt>
        <dd className="font-mono">X-API-KEY: {created.key_prefix}…</dd>
        <dt className="text-slate-500 dark:text-slate-400">Expires</dt>
        <dd>{formatTimestamp(created.expires_at)}</dd>
        <dt className="text-slate-500 dark:text-slate-400">Carries</dt>
        <dd>
          <ScopeList scopes={created.effective_scopes} />
        </dd>
        {dropped.length > 0 && (
          <>
            <dt className="text-slate-500 dark:text-slate-400">Never carries</dt>
            <dd>
              <ScopeList scopes={dropped} />
              <span className="text-slate-500 dark:text-slate-400">Dangerous permissions never reach a key.</span>
            </dd>
          </>
        )}
      </dl>
      <div className="flex justify-end">
        <button type="button" onClick={onClose} className={primaryButton}>
          I have copied the key
        </button>
      </div>
    </div>
  );
}
