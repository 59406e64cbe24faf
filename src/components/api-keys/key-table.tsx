"use client";

import type { ApiKey } from "@/lib/schemas/api-keys";
import { isDangerousScope } from "./catalog";
import { Badge, type Tone } from "@/components/ui/badge";
import { dangerRowAction, DataTable, td, type Column } from "@/components/ui/table";
import { When } from "@/components/ui/values";

type KeyStatus = "Active" | "Revoked" | "Expired";

function statusOf(key: ApiKey, now: number): KeyStatus {
  if (!key.is_active) return "Revoked";
  if (key.expires_at && Date.parse(key.expires_at) <= now) return "Expired";
  return "Active";
}

const STATUS_TONE: Record<KeyStatus, Tone> = { Active: "good", Revoked: "neutral", Expired: "warn" };

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

const COLUMNS: Column[] = ["Name", "Prefix", "Scopes", "Created", "Expires", "Last used", "Status"];

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
    <DataTable caption={caption} columns={onRevoke ? [...COLUMNS, { label: "Actions", hidden: true }] : COLUMNS} busy={busy}>
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
              <Badge tone={STATUS_TONE[status]}>{status}</Badge>
            </td>
            {onRevoke && (
              <td className={`${td} text-right`}>
                {key.is_active && (
                  <button
                    type="button"
                    onClick={() => onRevoke(key)}
                    aria-label={`Revoke ${key.name}`}
                    className={dangerRowAction}
                  >
                    Revoke
                  </button>
                )}
              </td>
            )}
          </tr>
        );
      })}
    </DataTable>
  );
}
