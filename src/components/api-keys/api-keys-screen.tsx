"use client";

import { keepPreviousData, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import type { ApiKey, CreatedApiKey } from "@/lib/schemas/api-keys";
import type { UserSummary } from "@/lib/schemas/users";
import { primaryButton, secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { CreateKeyDialog } from "./create-key-dialog";
import { KeyTable } from "./key-table";
import { NewKeyDialog } from "./new-key-dialog";
import { OwnerPicker } from "./owner-picker";
import { keyListInput, keyListOptions, type StatusFilter } from "./queries";
import { RevokeKeyDialog } from "./revoke-key-dialog";
import { PageHeader } from "@/components/ui/page-header";

const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "revoked", label: "Revoked" },
];

function StatusFilterControl({ value, onChange }: { value: StatusFilter; onChange: (value: StatusFilter) => void }) {
  return (
    <fieldset>
      <legend className="text-sm font-medium">Status</legend>
      <div className="mt-1 inline-flex rounded-md border border-slate-300 bg-white p-0.5 dark:border-slate-700 dark:bg-slate-900">
        {FILTERS.map((filter) => (
          <label
            key={filter.value}
            className="cursor-pointer rounded px-3 py-1.5 text-sm has-checked:bg-brand-600 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-brand-500"
          >
            <input
              type="radio"
              name="status"
              value={filter.value}
              checked={value === filter.value}
              onChange={() => onChange(filter.value)}
              className="sr-only"
            />
            {filter.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

function EmptyState({ title, body, action }: { title: string; body: string; action?: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-12 text-center dark:border-slate-700 dark:bg-slate-900">
      <p className="font-medium">{title}</p>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">{body}</p>
      {action && <div className="mt-4">{action}</div>}
    </div>
  );
}

const EMPTY_TEXT: Record<StatusFilter, string> = { all: "no API keys", active: "no active API keys", revoked: "no revoked API keys" };

export function ApiKeysScreen() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [owner, setOwner] = useState<UserSummary | null>(null);
  const [status, setStatus] = useState<StatusFilter>("all");
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [notice, setNotice] = useState("");
  const [now] = useState(() => Date.now());

  const list = useInfiniteQuery({ ...keyListOptions(trpc, keyListInput(owner?.id ?? null, status)), placeholderData: keepPreviousData });
  const keys = list.data?.pages.flatMap((page) => page.data) ?? [];
  const own = owner === null;
  const refresh = () => queryClient.invalidateQueries(trpc.apiKeys.list.pathFilter());

  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create API key
    </button>
  );

  function content() {
    if (list.isPending) {
      return (
        <p role="status" className="py-12 text-center text-sm text-slate-600 dark:text-slate-300">
          Loading API keys…
        </p>
      );
    }
    if (list.isError && keys.length === 0) {
      return (
        <div role="alert" className="rounded-xl border border-red-200 bg-red-50 p-6 text-sm dark:border-red-900 dark:bg-red-950">
          <p className="font-medium text-red-900 dark:text-red-100">The keys could not be loaded.</p>
          <p className="mt-1 text-red-800 dark:text-red-200">{messageOf(list.error)}</p>
          <button type="button" onClick={() => list.refetch()} className={`${secondaryButton} mt-4`}>
            Try again
          </button>
        </div>
      );
    }
    if (keys.length === 0) {
      const whose = own ? "You have" : `${owner.username} has`;
      return own && status === "all" ? (
        <EmptyState title="No API keys yet" body="Create a key to let an integration call the REST API as you." action={createButton} />
      ) : (
        <EmptyState title={`${whose} ${EMPTY_TEXT[status]}.`} body={status === "all" ? "Only a key's owner can create keys." : "Pick another status to see the rest."} />
      );
    }
    return (
      <>
        <KeyTable
          caption={own ? "Your API keys" : `API keys of ${owner.username}`}
          keys={keys}
          now={now}
          busy={list.isFetching}
          onRevoke={own ? setRevoking : undefined}
        />
        {list.hasNextPage && (
          <div className="mt-4 flex justify-center">
            <button type="button" onClick={() => list.fetchNextPage()} disabled={list.isFetchingNextPage} className={secondaryButton}>
              {list.isFetchingNextPage ? "Loading more…" : "Show more keys"}
            </button>
          </div>
        )}
      </>
    );
  }

  return (
    <section aria-labelledby="api-keys-heading">
      <PageHeader id="api-keys-heading" title="API keys" actions={own && createButton}>
        Integrations send a key in the <code className="font-mono">X-API-KEY</code> header to call the{" "}
        <a href="/api/docs" className="font-medium text-brand-600 underline-offset-2 hover:underline dark:text-brand-100">
          REST API
        </a>{" "}
        as its owner, within the key’s scopes.
      </PageHeader>

      <p role="status" className="mt-4 min-h-5 text-sm font-medium text-emerald-700 dark:text-emerald-300">
        {notice}
      </p>

      <div className="mt-2 flex flex-wrap items-end justify-between gap-6">
        <StatusFilterControl value={status} onChange={setStatus} />
        <div className="w-full max-w-md">
          <OwnerPicker onPick={(user) => setOwner(user)} />
        </div>
      </div>

      {!own && (
        <div className="mt-6 flex flex-wrap items-center justify-between gap-3 rounded-md border border-brand-100 bg-brand-50 px-4 py-3 text-sm dark:border-brand-900 dark:bg-brand-900/40">
          <p>
            Showing the keys of <strong className="font-semibold">{owner.username}</strong>
            {owner.display_name && owner.display_name !== owner.username && <> ({owner.display_name})</>}. Only a key’s
            owner can create or revoke it.
          </p>
          <button type="button" onClick={() => setOwner(null)} className={secondaryButton}>
            Back to my keys
          </button>
        </div>
      )}

      <div className="mt-6">{content()}</div>

      <CreateKeyDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(key) => {
          setCreating(false);
          setCreated(key);
          setNotice(`API key “${key.name}” created.`);
          void refresh();
        }}
      />
      <NewKeyDialog created={created} onClose={() => setCreated(null)} />
      <RevokeKeyDialog
        apiKey={revoking}
        onClose={() => setRevoking(null)}
        onRevoked={(key) => {
          setRevoking(null);
          setNotice(`API key “${key.name}” revoked.`);
          void refresh();
        }}
      />
    </section>
  );
}
