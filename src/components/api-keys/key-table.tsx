"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type ReactNode } from "react";
import { EXPIRING_SOON_DAYS } from "@/lib/api-keys";
import type { ApiKey } from "@/lib/schemas/api-keys";
import { textLink } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { isDangerousScope } from "./catalog";
import { keyListInput, keyListOptions, type StatusFilter } from "./queries";
import { Badge, type Tone } from "@/components/ui/badge";
import type { FilterState } from "@/components/ui/filter-bar";
import { ListView } from "@/components/ui/resource-section";
import { RowActions, td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import type { KeyActionStarts } from "./key-actions";

// The one table of API keys: the signed-in admin's own on the API keys screen (editable, rollable
// and revocable there), and anyone's on that screen or on a user's page (read-only: only a key's
// owner changes it). Each name leads to the key's page (its usage).

type KeyStatus = "Active" | "Expires soon" | "Revoked" | "Expired";

const DAY_MS = 86_400_000;

export function statusOf(key: ApiKey, now: number): KeyStatus {
  if (!key.is_active) return "Revoked";
  const expires = key.expires_at ? Date.parse(key.expires_at) : Infinity;
  if (expires <= now) return "Expired";
  return expires <= now + EXPIRING_SOON_DAYS * DAY_MS ? "Expires soon" : "Active";
}

export const STATUS_TONE: Record<KeyStatus, Tone> = {
  Active: "good",
  "Expires soon": "warn",
  Revoked: "neutral",
  Expired: "warn",
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
          <summary className="cursor-pointer text-xs font-medium text-brand-600 dark:text-brand-300">
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

interface KeyTableProps {
  /** Whose keys: null for the signed-in user's own. */
  ownerId: string | null;
  status?: StatusFilter;
  /** The status filter's state, when the table has one: nothing matching it is said so. */
  filters?: FilterState;
  caption: string;
  empty: { title: string; body?: ReactNode; action?: ReactNode };
  /** Absent when the keys are another user's: only the owner changes them. */
  actions?: KeyActionStarts;
}

export function KeyTable({ ownerId, status = "all", filters, caption, empty, actions }: KeyTableProps) {
  const trpc = useTRPC();
  const list = useInfiniteQuery({
    ...keyListOptions(trpc, keyListInput(ownerId, status)),
    placeholderData: keepPreviousData,
  });
  const [now] = useState(() => Date.now());
  return (
    <ListView
      query={list}
      noun="API keys"
      caption={caption}
      columns={[
        "Name",
        "Prefix",
        "Scopes",
        "Created",
        "Expires",
        "Last used",
        "Status",
        ...(actions ? [{ label: "Actions", hidden: true as const }] : []),
      ]}
      row={(key) => {
        const keyStatus = statusOf(key, now);
        return (
          <>
            <th scope="row" className={`${td} min-w-40 text-left font-medium break-words`}>
              <Link href={`/console/api-keys/${key.id}`} className={textLink}>
                {key.name}
              </Link>
            </th>
            <td className={`${td} font-mono whitespace-nowrap`}>{key.key_prefix}…</td>
            <td className={td}>
              <Scopes scopes={key.scopes} />
            </td>
            <WhenCell iso={key.created_at} />
            <WhenCell iso={key.expires_at} />
            <WhenCell iso={key.last_used_at} />
            <td className={td}>
              <Badge tone={STATUS_TONE[keyStatus]}>{keyStatus}</Badge>
            </td>
            {actions && (
              <RowActions
                actions={[
                  ...(key.is_active
                    ? [{ label: "Edit", ariaLabel: `Edit ${key.name}`, onClick: () => actions.onEdit(key) }]
                    : []),
                  ...(keyStatus === "Active" || keyStatus === "Expires soon"
                    ? [{ label: "Roll", ariaLabel: `Roll ${key.name}`, onClick: () => actions.onRoll(key) }]
                    : []),
                  ...(key.is_active && key.credits
                    ? [
                        {
                          label: "Change balance",
                          ariaLabel: `Change the balance of ${key.name}`,
                          onClick: () => actions.onCredits(key),
                        },
                      ]
                    : []),
                  ...(key.is_active
                    ? [
                        {
                          label: "Revoke",
                          ariaLabel: `Revoke ${key.name}`,
                          onClick: () => actions.onRevoke(key),
                          danger: true,
                        },
                      ]
                    : []),
                ]}
              />
            )}
          </>
        );
      }}
      empty={empty}
      filters={filters}
      moreLabel="Show more keys"
    />
  );
}
