"use client";

import { useMutation } from "@tanstack/react-query";
import { useId, useState, type ReactNode } from "react";
import { formatDate, formatTime } from "@/components/api-keys/format";
import { Dialog } from "@/components/ui/dialog";
import { dangerButton, labelClass, secondaryButton } from "@/components/ui/styles";
import { messageOf } from "@/trpc/react";

// Pieces the identity screens (users, roles, members, OAuth clients) share: states of a list,
// badges, tables, timestamps, the confirmation of a destructive action and the show-once secret.

export const th = "px-3 py-2 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300";
export const td = "px-3 py-3 align-top text-sm";
export const tableFrame = "overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900";
export const tableClass = "min-w-full divide-y divide-slate-200 dark:divide-slate-800";
export const tbodyClass = "divide-y divide-slate-200 dark:divide-slate-800";
export const theadClass = "bg-slate-50 dark:bg-slate-950";
export const rowAction = "rounded-md px-2 py-1 text-sm font-medium whitespace-nowrap text-brand-700 hover:bg-brand-50 dark:text-brand-100 dark:hover:bg-slate-800";
export const dangerRowAction = "rounded-md px-2 py-1 text-sm font-medium whitespace-nowrap text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950";
export const textLink = "font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-100";
export const mutedText = "text-slate-500 dark:text-slate-400";

export function LoadingState({ label }: { label: string }) {
  return (
    <p role="status" className="py-8 text-center text-sm text-slate-600 dark:text-slate-300">
      {label}
    </p>
  );
}

export function ErrorState({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-5 text-sm dark:border-red-900 dark:bg-red-950">
      <p className="font-medium text-red-900 dark:text-red-100">{title}</p>
      <p className="mt-1 text-red-800 dark:text-red-200">{messageOf(error)}</p>
      {onRetry && (
        <button type="button" onClick={onRetry} className={`${secondaryButton} mt-4`}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, body, action }: { title: string; body?: ReactNode; action?: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-8 text-center dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium">{title}</p>
      {body && <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>}
      {action && <div className="mt-4">{action}</div>}
    </div>
  );
}

/** The polite live region a screen announces finished actions in. */
export function Notice({ text }: { text: string }) {
  return (
    <p role="status" className="min-h-5 text-sm font-medium text-emerald-700 dark:text-emerald-300">
      {text}
    </p>
  );
}

export function FormAlert({ id, message }: { id?: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p
      id={id}
      role="alert"
      className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200"
    >
      {message}
    </p>
  );
}

export function ShowMore({ visible, loading, onClick, label }: { visible: boolean; loading: boolean; onClick: () => void; label: string }) {
  if (!visible) return null;
  return (
    <div className="mt-4 flex justify-center">
      <button type="button" onClick={onClick} disabled={loading} className={secondaryButton}>
        {loading ? "Loading more…" : label}
      </button>
    </div>
  );
}

const TONES = {
  neutral: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
  good: "bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-200",
  warn: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-200",
  bad: "bg-red-50 text-red-800 ring-red-600/20 dark:bg-red-950 dark:text-red-200",
  brand: "bg-brand-50 text-brand-700 ring-brand-600/20 dark:bg-brand-900 dark:text-brand-100",
} as const;

export function Badge({ tone = "neutral", title, children }: { tone?: keyof typeof TONES; title?: string; children: ReactNode }) {
  return (
    <span title={title} className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONES[tone]}`}>
      {children}
    </span>
  );
}

/** Marks a dangerous permission: it never reaches an API key. */
export function DangerousBadge() {
  return (
    <Badge tone="warn" title="Dangerous: never reaches an API key">
      Dangerous
    </Badge>
  );
}

/** A timestamp as its date, with the time (UTC) under it. */
export function When({ iso, none = "Never" }: { iso: string | null; none?: string }) {
  if (!iso) return <span className={mutedText}>{none}</span>;
  return (
    <time dateTime={iso} className="whitespace-nowrap">
      {formatDate(iso)}
      <span className={`block text-xs ${mutedText}`}>{formatTime(iso)}</span>
    </time>
  );
}

export function Code({ children }: { children: ReactNode }) {
  return <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs break-all dark:bg-slate-800">{children}</code>;
}

/** A section of a page with its heading and, on the right, its actions. */
export function Section({ id, title, description, actions, children }: { id: string; title: string; description?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="mt-10">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="max-w-2xl">
          <h2 id={id} className="text-lg font-semibold tracking-tight">
            {title}
          </h2>
          {description && <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{description}</p>}
        </div>
        {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
      </div>
      <div className="mt-4">{children}</div>
    </section>
  );
}

interface ConfirmDialogProps<T> {
  /** What is about to be acted on; null keeps the dialog closed. */
  subject: T | null;
  title: (subject: T) => string;
  body: (subject: T) => ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  onClose: () => void;
  /** The action; its error (a refusal such as a 409) is shown in the dialog, which stays open. */
  run: (subject: T) => Promise<unknown>;
  onDone: (subject: T) => void;
}

/** The confirmation of a destructive action: says what happens, shows why it was refused. */
export function ConfirmDialog<T>(props: ConfirmDialogProps<T>) {
  const { subject, title, onClose } = props;
  return (
    <Dialog open={subject !== null} onClose={onClose} title={subject !== null ? title(subject) : "Confirm"} alert>
      {subject !== null && <Confirm {...props} subject={subject} />}
    </Dialog>
  );
}

function Confirm<T>({ subject, body, confirmLabel, pendingLabel, onClose, run, onDone }: ConfirmDialogProps<T> & { subject: T }) {
  const action = useMutation({ mutationFn: () => run(subject), onSuccess: () => onDone(subject) });
  return (
    <div className="space-y-4">
      <div className="text-sm leading-6 text-slate-600 dark:text-slate-300">{body(subject)}</div>
      <FormAlert message={action.error ? messageOf(action.error) : undefined} />
      <div className="flex justify-end gap-3">
        <button type="button" onClick={onClose} className={secondaryButton} autoFocus>
          Cancel
        </button>
        <button type="button" disabled={action.isPending} onClick={() => action.mutate()} className={dangerButton}>
          {action.isPending ? pendingLabel : confirmLabel}
        </button>
      </div>
    </div>
  );
}

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
