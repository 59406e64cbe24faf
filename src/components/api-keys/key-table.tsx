"use client";

import type { ApiKey } from "@/lib/schemas/api-keys";
import { isDangerousScope } from "./catalog";
import { formatDate, formatTime } from "./format";

type KeyStatus = "Active" | "Revoked" | "Expired";

function statusOf(key: ApiKey, now: number): KeyStatus {
  if (!key.is_active) return "Revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= now) return "Expired";
  return "Active";
}

const STATUS_STYLE: Record<KeyStatus, string> = {
  Active: "bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-200",
  Revoked: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300",
  Expired: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-200",
};

const VISIBLE_SCOPES = 3;

function Scope({ scope }: { scope: string }) {
  const dangerous = isDangerousScope(scope);
  return (
    <li>
      <code
        className={`rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs dark:bg-slate-800 ${dangerous ? "text-slate-400 line-through dark:text-slate-500" : ""}`}
        title={dangerous ? "Dangerous: never reaches a key" : undefined}
      >
        {scope}
      </code>
      {dangerous && <span className="sr-only"> (dangerous: never reaches a key)</span>}
    </li>
  );
}

function Scopes({ scopes }: { scopes: string[] }) {
  const shown = scopes.slice(0, VISIBLE_SCOPES);
  const rest = scopes.slice(VISIBLE_SCOPES);
  return (
    <div>
      <ul className="flex flex-col gap-1">
        {shown.map((scope) => (
          <Scope key={scope} scope={scope} />
        ))}
      </ul>
      {rest.length > 0 && (
        <details className="mt-1">
          <summary className="cursor-pointer text-xs font-medium text-brand-600 dark:text-brand-100">
            {rest.length} more
          </summary>
          <ul className="mt-1 flex flex-col gap-1">
            {rest.map((scope) => (
              <Scope key={scope} scope={scope} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

/** A timestamp as its date, with the time (UTC) under it. */
function When({ iso }: { iso: string | null }) {
  if (!iso) return <span className="text-slate-500 dark:text-slate-400">Never</span>;
  return (
    <time dateTime={iso} className="whitespace-nowrap">
      {formatDate(iso)}
      <span className="block text-xs text-slate-500 dark:text-slate-400">{formatTime(iso)}</span>
    </time>
  );
}

const th = "px-3 py-2 text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300";
const td = "px-3 py-3 align-top text-sm";

interface KeyTableProps {
  caption: string;
  keys: ApiKey[];
  now: number;
  busy: boolean;
  /** Absent when the keys are another user's: only the owner revokes. */
  onRevoke?: (key: ApiKey) => void;
}

export function KeyTable({ caption, keys, now, busy, onRevoke }: KeyTableProps) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white shadow-sm dark:border-slate-800 dark:bg-slate-900">
      <table className="min-w-full divide-y divide-slate-200 dark:divide-slate-800" aria-busy={busy}>
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 dark:bg-slate-950">
          <tr>
            <th scope="col" className={th}>Name</th>
            <th scope="col" className={th}>Prefix</th>
            <th scope="col" className={th}>Scopes</th>
            <th scope="col" className={th}>Created</th>
            <th scope="col" className={th}>Expires</th>
            <th scope="col" className={th}>Last used</th>
            <th scope="col" className={th}>Status</th>
            {onRevoke && (
              <th scope="col" className={th}>
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 dark:divide-slate-800">
          {keys.map((key) => {
            const status = statusOf(key, now);
            return (
              <tr key={key.id}>
                <th scope="row" className={`${td} min-w-40 text-left font-medium break-words`}>
                  {key.name}
                </th>
                <td className={`${td} font-mono whitespace-nowrap`}>{key.key_prefix}…</td>
                <td className={td}>
                  <Scopes scopes={key.scopes} />
                </td>
                <td className={td}>
                  <When iso={key.created_at} />
                </td>
                <td className={td}>
                  <When iso={key.expires_at} />
                </td>
                <td className={td}>
                  <When iso={key.last_used_at} />
                </td>
                <td className={td}>
                  <span className={`inline-flex rounded-full px-2 py-0.5 text-xs font-medium ring-1 ring-inset ${STATUS_STYLE[status]}`}>
                    {status}
                  </span>
                </td>
                {onRevoke && (
                  <td className={`${td} text-right`}>
                    {key.is_active && (
                      <button
                        type="button"
                        onClick={() => onRevoke(key)}
                        aria-label={`Revoke ${key.name}`}
                        className="rounded-md px-2 py-1 text-sm font-medium text-red-700 hover:bg-red-50 dark:text-red-400 dark:hover:bg-red-950"
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
