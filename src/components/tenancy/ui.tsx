"use client";

import { useMutation } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { formatDate, formatTime } from "@/components/api-keys/format";
import { Dialog } from "@/components/ui/dialog";
import { dangerButton, secondaryButton } from "@/components/ui/styles";
import { messageOf } from "@/trpc/react";

// Pieces every tenancy screen shares: states of a list (loading, failed, empty), badges, tables,
// timestamps, JSON values and the confirmation dialog of a destructive action.

export const th = "px-3 py-2 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300";
export const td = "px-3 py-3 align-top text-sm";
export const tableFrame = "overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900";
export const tableClass = "min-w-full divide-y divide-slate-200 dark:divide-slate-800";
export const rowAction = "rounded-md px-2 py-1 text-sm font-medium text-brand-700 hover:bg-brand-50 dark:text-brand-100 dark:hover:bg-slate-800";
export const dangerRowAction = "rounded-md px-2 py-1 text-sm font-medium text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950";
export const alertBox =
  "rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200";

export function LoadingState({ label }: { label: string }) {
  return (
    <p role="status" className="py-10 text-center text-sm text-slate-600 dark:text-slate-300">
      {label}
    </p>
  );
}

export function ErrorState({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-6 text-sm dark:border-red-900 dark:bg-red-950">
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

export function EmptyState({ title, body, action }: { title: string; body: ReactNode; action?: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium">{title}</p>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>
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
    <p id={id} role="alert" tabIndex={-1} className={`${alertBox} focus:outline-none`}>
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
  accent: "bg-violet-50 text-violet-800 ring-violet-600/20 dark:bg-violet-950 dark:text-violet-200",
} as const;
export type Tone = keyof typeof TONES;

export function Badge({ tone = "neutral", children }: { tone?: Tone; children: ReactNode }) {
  return <span className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap ring-1 ring-inset ${TONES[tone]}`}>{children}</span>;
}

const TIER_TONE: Record<string, Tone> = { free: "neutral", pro: "brand", enterprise: "accent" };
const STATUS_TONE: Record<string, Tone> = { active: "good", suspended: "warn", archived: "neutral", inactive: "neutral" };

export const TierBadge = ({ tier }: { tier: string }) => <Badge tone={TIER_TONE[tier] ?? "neutral"}>{tier}</Badge>;
export const StatusBadge = ({ status }: { status: string }) => <Badge tone={STATUS_TONE[status] ?? "neutral"}>{status}</Badge>;

/** A timestamp as its date, with the time (UTC) under it. */
export function When({ iso, none = "Never" }: { iso: string | null; none?: string }) {
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">{none}</span>;
  return (
    <time dateTime={iso} className="whitespace-nowrap">
      {formatDate(iso)}
      <span className="block text-xs text-slate-500 dark:text-slate-400">{formatTime(iso)}</span>
    </time>
  );
}

/** A JSON value as JSON (so "true" the string and true the boolean look different). */
export function JsonValue({ value }: { value: unknown }) {
  const text = JSON.stringify(value, null, typeof value === "object" && value !== null ? 2 : undefined);
  const long = text.length > 60 || text.includes("\n");
  return long ? (
    <pre className="max-h-40 max-w-md overflow-auto rounded bg-slate-50 p-2 font-mono text-xs dark:bg-slate-950">{text}</pre>
  ) : (
    <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs break-all dark:bg-slate-800">{text}</code>
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
    <Dialog open={subject !== null} onClose={onClose} title={subject ? title(subject) : "Confirm"} alert>
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
