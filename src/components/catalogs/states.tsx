import type { ReactNode } from "react";
import { secondaryButton } from "@/components/ui/styles";

// Loading, empty and failed states of the catalog screens, alike on every screen.

export function LoadingState({ what }: { what: string }) {
  return (
    <p role="status" className="flex items-center justify-center gap-3 py-12 text-sm text-slate-600 dark:text-slate-300">
      <span aria-hidden="true" className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-brand-600" />
      Loading {what}…
    </p>
  );
}

export function EmptyState({ title, body, action }: { title: string; body: string; action?: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium">{title}</p>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>
      {action && <div className="mt-4">{action}</div>}
    </div>
  );
}

export function LoadError({ title, message, onRetry }: { title: string; message: string; onRetry: () => void }) {
  return (
    <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-6 text-sm dark:border-red-900 dark:bg-red-950">
      <p className="font-medium text-red-900 dark:text-red-100">{title}</p>
      <p className="mt-1 text-red-800 dark:text-red-200">{message}</p>
      <button type="button" onClick={onRetry} className={`${secondaryButton} mt-4`}>
        Try again
      </button>
    </div>
  );
}

/** A failure of the whole form (not of one field), read out when it appears. */
export function FormAlert({ message }: { message: string | undefined }) {
  if (!message) return null;
  return (
    <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
      {message}
    </p>
  );
}

export interface ScreenNotice {
  text: string;
  error: boolean;
}

/** What the screen says after a change: a status, or an alert when it failed. */
export function Notice({ notice }: { notice: ScreenNotice | null }) {
  return (
    <>
      <p role="status" className="mt-4 min-h-5 text-sm font-medium text-emerald-700 dark:text-emerald-300">
        {notice && !notice.error ? notice.text : ""}
      </p>
      {notice?.error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200">
          {notice.text}
        </p>
      )}
    </>
  );
}

/** The "Show more" under a paginated table. */
export function ShowMore({ hasMore, loading, onMore, label }: { hasMore: boolean; loading: boolean; onMore: () => void; label: string }) {
  if (!hasMore) return null;
  return (
    <div className="mt-4 flex justify-center">
      <button type="button" onClick={onMore} disabled={loading} className={secondaryButton}>
        {loading ? "Loading more…" : label}
      </button>
    </div>
  );
}

export const tableFrame = "overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900";
export const tableClass = "min-w-full divide-y divide-slate-200 dark:divide-slate-800";
export const th = "px-3 py-2 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300";
export const td = "px-3 py-3 align-top text-sm";
export const badge = "inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset";
export const neutralBadge = `${badge} bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300`;
export const positiveBadge = `${badge} bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-200`;
