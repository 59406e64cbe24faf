"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { UserSummary } from "@/lib/schemas/users";
import { primaryButton, secondaryButton, textLink } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { useKeyActions } from "./key-actions";
import { KeyTable } from "./key-table";
import { OwnerPicker } from "./owner-picker";
import type { StatusFilter } from "./queries";
import { useOpenedOnce } from "@/components/ui/dialog";
import { FilterBar, useListFilters } from "@/components/ui/filter-bar";
import { HeadedSection } from "@/components/ui/page-header";
import { useNotice } from "@/components/ui/resource-section";
import { Segmented } from "@/components/ui/segmented";
import { Notice } from "@/components/ui/states";
import { onDemand } from "@/components/ui/form-loading";

// The create form (with its validation) loads when first opened, not with the page.
const CreateKeyDialog = onDemand(() => import("./create-key-dialog").then((m) => m.CreateKeyDialog));

const FILTERS: { value: StatusFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "active", label: "Active" },
  { value: "revoked", label: "Revoked" },
];

/** `userId`: the signed-in admin, who owns the keys created here. */
export function ApiKeysScreen({ userId }: { userId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [owner, setOwner] = useState<UserSummary | null>(null);
  const filters = useListFilters({ status: "all" as StatusFilter });
  const [creating, setCreating] = useState(false);
  const createOpened = useOpenedOnce(creating);
  const notice = useNotice();
  const own = owner === null;
  const refresh = () => queryClient.invalidateQueries(trpc.apiKeys.list.pathFilter());
  const keyActions = useKeyActions(notice.say, () => void refresh());

  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create API key
    </button>
  );

  return (
    <HeadedSection
      title="API keys"
      description={
        <>
          Integrations send a key in the <code className="font-mono">X-API-KEY</code> header to call the{" "}
          {/* eslint-disable-next-line @next/next/no-html-link-for-pages -- the reference is whole static pages, loaded as documents */}
          <a href="/api/docs" className={textLink}>
            REST API
          </a>{" "}
          as its owner, within the key’s scopes.
        </>
      }
      actions={own && createButton}
    >
      <FilterBar noun="API keys" filters={filters}>
        <Segmented legend="Status" name="status" options={FILTERS} {...filters.choice("status")} />
      </FilterBar>
      <div className="mt-4 w-full max-w-md">
        <OwnerPicker onPick={(user) => setOwner(user)} />
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

      <div className="mt-4">
        <Notice text={notice.text} />
      </div>

      <div className="mt-2">
        <KeyTable
          ownerId={owner?.id ?? null}
          status={filters.applied.status}
          filters={filters}
          caption={own ? "Your API keys" : `API keys of ${owner.username}`}
          empty={
            own
              ? {
                  title: "No API keys yet",
                  body: "Create a key to let an integration call the REST API as you.",
                  action: createButton,
                }
              : { title: `${owner.username} has no API keys.`, body: "Only a key’s owner can create keys." }
          }
          actions={own ? keyActions.starts : undefined}
        />
      </div>

      {createOpened && (
        <CreateKeyDialog
          ownerId={userId}
          open={creating}
          onClose={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            keyActions.showCreated(key);
            notice.say(`API key “${key.name}” created.`);
            void refresh();
          }}
        />
      )}
      {keyActions.dialogs}
    </HeadedSection>
  );
}
