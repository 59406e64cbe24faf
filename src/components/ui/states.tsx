import type { UseQueryResult } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { messageOf } from "@/trpc/react";
import { secondaryButton, textLink } from "./styles";

// States of a screen's list (loading, failed, empty), the line it announces finished actions in and
// the alert of a form that failed as a whole.

export function LoadingState({ label }: { label: string }) {
  return (
    <p
      role="status"
      className="flex items-center justify-center gap-3 py-10 text-sm text-slate-600 dark:text-slate-300"
    >
      <span
        aria-hidden="true"
        className="size-4 animate-spin rounded-full border-2 border-slate-300 border-t-brand-600"
      />
      {label}
    </p>
  );
}

export function ErrorState({ title, error, onRetry }: { title: string; error: unknown; onRetry?: () => void }) {
  return (
    <div
      role="alert"
      className="rounded-xl border border-red-200 bg-red-50 p-6 text-sm dark:border-red-900 dark:bg-red-950"
    >
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

/** An empty list: a live region, so a search that leaves nothing is heard as well as seen. */
export function EmptyState({ title, body, action }: { title: string; body?: ReactNode; action?: ReactNode }) {
  return (
    <div
      role="status"
      className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-10 text-center dark:border-slate-700 dark:bg-slate-900"
    >
      <p className="font-medium">{title}</p>
      {body && <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>}
      {action && <div className="mt-4">{action}</div>}
    </div>
  );
}

const alertBox =
  "rounded-md border border-red-200 bg-red-50 px-3 py-2 text-sm font-medium text-red-800 dark:border-red-900 dark:bg-red-950 dark:text-red-200";

/** A failure of the whole form (not of one field), read out when it appears and focusable. */
export function FormAlert({ id, message }: { id?: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" tabIndex={-1} className={`${alertBox} focus:outline-none`}>
      {message}
    </p>
  );
}

/** What the screen says after a change: the polite live region, or an alert when it failed. */
export function Notice({ text, error = false }: { text: string; error?: boolean }) {
  return (
    <>
      <p role="status" className="min-h-5 text-sm font-medium text-emerald-700 dark:text-emerald-300">
        {error ? "" : text}
      </p>
      {error && text && (
        <p role="alert" className={alertBox}>
          {text}
        </p>
      )}
    </>
  );
}

/** The "Show more" under a paginated list. */
export function ShowMore({
  visible,
  loading,
  onClick,
  label,
}: {
  visible: boolean;
  loading: boolean;
  onClick: () => void;
  label: string;
}) {
  if (!visible) return null;
  return (
    <div className="mt-4 flex justify-center">
      <button type="button" onClick={onClick} disabled={loading} className={secondaryButton}>
        {loading ? "Loading more…" : label}
      </button>
    </div>
  );
}

/** The way back from one item's page to the list it belongs to. */
export function BackLink({ href, children }: { href: string; children: string }) {
  return (
    <Link href={href} className={`text-sm ${textLink}`}>
      ← {children}
    </Link>
  );
}

/** One item's page: its data once loaded; meanwhile, or when it failed, says so (with the way back). */
export function Loaded<T>({
  query,
  what,
  back,
  children,
}: {
  query: UseQueryResult<T, unknown>;
  what: string;
  back?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingState label={`Loading ${what}…`} />;
  if (query.isError) {
    return (
      <div className="space-y-4">
        {back}
        <ErrorState
          title={`${what.charAt(0).toUpperCase()}${what.slice(1)} could not be loaded.`}
          error={query.error}
          onRetry={() => query.refetch()}
        />
      </div>
    );
  }
  return <>{children(query.data)}</>;
}
