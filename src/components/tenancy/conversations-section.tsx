"use client";

import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import type { Conversation, Message } from "@/lib/schemas/conversations";
import type { Member } from "@/lib/schemas/members";
import { formatTimestamp } from "@/components/api-keys/format";
import { secondaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import {
  conversationListOptions,
  memberChoicesOptions,
  messageListOptions,
  orchestratorChoicesOptions,
} from "./queries";
import { Badge, type Tone } from "@/components/ui/badge";
import { SelectField, TextField } from "@/components/ui/fields";
import { useDebounced } from "@/components/ui/use-debounced";
import { EmptyState, ErrorState, LoadingState, ShowMore } from "@/components/ui/states";
import { DataTable, td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { HeadedSection } from "@/components/ui/page-header";

// A read-only viewer of an organization's conversations: pick a member, list their conversations,
// open one to read its messages in order (oldest first), a page at a time. Nothing here writes.

const who = (m: Pick<Member, "username" | "display_name">) =>
  m.display_name && m.display_name !== m.username ? `${m.display_name} (${m.username})` : m.username;

export function ConversationsSection({ orgId }: { orgId: string }) {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const q = useDebounced(search.trim());
  const members = useQuery({ ...memberChoicesOptions(trpc, orgId, q || undefined), placeholderData: keepPreviousData });
  const [member, setMember] = useState<Member | null>(null);
  const [conversation, setConversation] = useState<Conversation | null>(null);

  const memberOptions = [
    {
      value: "",
      label: members.isPending
        ? "Loading members…"
        : (members.data?.data.length ?? 0) > 0
          ? "Pick a member"
          : q
            ? `No member matches “${q}”`
            : "The organization has no members",
    },
    ...(members.data?.data ?? []).map((m) => ({ value: m.user_id, label: who(m) })),
  ];

  return (
    <HeadedSection
      title="Conversations"
      level={2}
      description="Read-only: what a member of the organization said to its orchestrators, and what they answered."
      className="space-y-6"
    >
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label="Search members"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="Username, display name or email"
          autoComplete="off"
        />
        <SelectField
          label="Member"
          value={member?.user_id ?? ""}
          onChange={(event) => {
            setMember(members.data?.data.find((m) => m.user_id === event.target.value) ?? null);
            setConversation(null);
          }}
          options={
            member && !members.data?.data.some((m) => m.user_id === member.user_id)
              ? [...memberOptions, { value: member.user_id, label: who(member) }]
              : memberOptions
          }
          hint="Whose conversations to read."
        />
      </div>
      {members.isError && (
        <ErrorState title="The members could not be loaded." error={members.error} onRetry={() => members.refetch()} />
      )}

      {member ? (
        <ConversationList orgId={orgId} member={member} openId={conversation?.id ?? null} onOpen={setConversation} />
      ) : (
        <EmptyState
          title="Pick a member"
          body="Their conversations in this organization are listed here, newest first."
        />
      )}

      {member && conversation && (
        <MessageHistory orgId={orgId} conversation={conversation} onClose={() => setConversation(null)} />
      )}
    </HeadedSection>
  );
}

function ConversationList({
  orgId,
  member,
  openId,
  onOpen,
}: {
  orgId: string;
  member: Member;
  openId: string | null;
  onOpen: (c: Conversation) => void;
}) {
  const trpc = useTRPC();
  const list = useInfiniteQuery(conversationListOptions(trpc, orgId, member.user_id));
  const instances = useQuery(orchestratorChoicesOptions(trpc, orgId));
  const conversations = list.data?.pages.flatMap((page) => page.data) ?? [];
  const instanceName = (id: string | null) =>
    id ? (instances.data?.data.find((o) => o.id === id)?.name ?? "A deleted instance") : "No instance";

  if (list.isPending) return <LoadingState label="Loading conversations…" />;
  if (list.isError && conversations.length === 0)
    return (
      <ErrorState title="The conversations could not be loaded." error={list.error} onRetry={() => list.refetch()} />
    );
  if (conversations.length === 0)
    return (
      <EmptyState
        title={`${member.username} has no conversations here.`}
        body="Conversations appear once the member talks to one of the organization’s orchestrators."
      />
    );
  return (
    <div>
      <DataTable
        caption={`Conversations of ${member.username}`}
        columns={["Title", "Orchestrator", "Started", { label: "Actions", hidden: true }]}
        busy={list.isFetching}
        more={{
          visible: list.hasNextPage,
          loading: list.isFetchingNextPage,
          onClick: () => list.fetchNextPage(),
          label: "Show more conversations",
        }}
      >
        {conversations.map((c) => (
          <tr
            key={c.id}
            aria-current={c.id === openId ? "true" : undefined}
            className={c.id === openId ? "bg-brand-50/60 dark:bg-brand-900/30" : undefined}
          >
            <th scope="row" className={`${td} text-left font-medium`}>
              {c.title ?? <span className="font-normal text-slate-500 dark:text-slate-400">Untitled</span>}
            </th>
            <td className={td}>{instanceName(c.instance_id)}</td>
            <WhenCell iso={c.created_at} />
            <td className={`${td} text-right`}>
              <button
                type="button"
                onClick={() => onOpen(c)}
                className="rounded-md px-2 py-1 text-sm font-medium text-brand-700 hover:bg-brand-50 dark:text-brand-300 dark:hover:bg-slate-800"
                aria-label={`Read ${c.title ?? `the untitled conversation of ${formatTimestamp(c.created_at)}`}`}
              >
                Read
              </button>
            </td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}

const ROLE_TONE: Record<Message["role"], Tone> = {
  user: "brand",
  assistant: "good",
  tool: "accent",
  intent: "neutral",
  unknown: "warn",
};

function MessageHistory({
  orgId,
  conversation,
  onClose,
}: {
  orgId: string;
  conversation: Conversation;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const history = useInfiniteQuery(messageListOptions(trpc, orgId, conversation.id));
  const messages = history.data?.pages.flatMap((page) => page.data) ?? [];
  const title = conversation.title ?? "Untitled conversation";

  function content() {
    if (history.isPending) return <LoadingState label="Loading messages…" />;
    if (history.isError && messages.length === 0)
      return (
        <ErrorState title="The messages could not be loaded." error={history.error} onRetry={() => history.refetch()} />
      );
    if (messages.length === 0) return <EmptyState title="No messages" body="This conversation has no messages yet." />;
    return (
      <>
        <ol aria-label={`Messages of ${title}`} className="space-y-3">
          {messages.map((m) => (
            <li
              key={m.id}
              className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
            >
              <div className="flex flex-wrap items-center gap-2 text-xs text-slate-500 dark:text-slate-400">
                <Badge tone={ROLE_TONE[m.role]}>{m.role}</Badge>
                <time dateTime={m.created_at}>{formatTimestamp(m.created_at)}</time>
                {m.status && m.status !== "complete" && (
                  <Badge tone={m.status === "error" ? "bad" : "warn"}>{m.status}</Badge>
                )}
                {m.is_compacted && <Badge>compacted</Badge>}
              </div>
              <p className="mt-2 text-sm break-words whitespace-pre-wrap">{m.content}</p>
            </li>
          ))}
        </ol>
        <ShowMore
          visible={history.hasNextPage}
          loading={history.isFetchingNextPage}
          onClick={() => history.fetchNextPage()}
          label="Show more messages"
        />
      </>
    );
  }

  return (
    <section
      aria-labelledby="history-heading"
      className="rounded-xl border border-slate-200 bg-slate-50 p-5 dark:border-slate-800 dark:bg-slate-950"
    >
      <div className="mb-4 flex flex-wrap items-start justify-between gap-3">
        <div>
          <h3 id="history-heading" className="text-base font-semibold">
            {title}
          </h3>
          <p className="text-sm text-slate-600 dark:text-slate-300">
            Oldest first; intent messages are not part of the history.
          </p>
        </div>
        <button type="button" onClick={onClose} className={secondaryButton}>
          Close conversation
        </button>
      </div>
      {content()}
    </section>
  );
}
