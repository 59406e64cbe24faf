"use client";

import { keepPreviousData, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { useTRPC } from "@/trpc/react";
import { CreateUserDialog } from "./create-user-dialog";
import { userListOptions, type UserFilters } from "./queries";
import { Badge } from "@/components/ui/badge";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { inputClass, labelClass, mutedText, primaryButton, secondaryButton, textLink } from "@/components/ui/styles";
import { DataTable, td } from "@/components/ui/table";
import { When } from "@/components/ui/values";
import { PageHeader } from "@/components/ui/page-header";

// Users: search by username, display name or email; deleted users on request (sys_admins); create
// a user, who opens on their own page.

export function UsersScreen() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const searchId = useId();
  const [text, setText] = useState("");
  const [filters, setFilters] = useState<UserFilters>({});
  const [creating, setCreating] = useState(false);

  const list = useInfiniteQuery({ ...userListOptions(trpc, filters), placeholderData: keepPreviousData });
  const users = list.data?.pages.flatMap((page) => page.data) ?? [];

  function search(event: FormEvent) {
    event.preventDefault();
    const q = text.trim();
    setFilters((f) => ({ ...f, q: q === "" ? undefined : q }));
  }

  function content() {
    if (list.isPending) return <LoadingState label="Loading users…" />;
    if (list.isError && users.length === 0) return <ErrorState title="The users could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (users.length === 0) {
      return filters.q ? <EmptyState title={`No user matches “${filters.q}”.`} /> : <EmptyState title="No users yet." />;
    }
    return (
      <DataTable caption="Users" columns={["Username", "Display name", "Email", "Sign-in", "Created"]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more users" }}>
        {users.map((user) => (
          <tr key={user.id}>
            <th scope="row" className={`${td} text-left font-medium break-all`}>
              <Link href={`/console/users/${user.id}`} className={textLink}>
                {user.username}
              </Link>
              {user.is_deleted && (
                <span className="ml-2">
                  <Badge tone="bad">Deleted</Badge>
                </span>
              )}
            </th>
            <td className={td}>{user.display_name ?? <span className={mutedText}>—</span>}</td>
            <td className={`${td} break-all`}>{user.email ?? <span className={mutedText}>—</span>}</td>
            <td className={td}>{user.has_password ? <Badge>Password</Badge> : <Badge tone="brand">OAuth only</Badge>}</td>
            <td className={td}>
              <When iso={user.created_at} />
            </td>
          </tr>
        ))}
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="users-heading">
      <PageHeader
        id="users-heading"
        title="Users"
        actions={
          <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
            Create user
          </button>
        }
      >
        Everyone who can sign in: their organizations, roles, linked identities and API keys are on their page.
      </PageHeader>

      <div className="mt-6 flex flex-wrap items-end justify-between gap-4">
        <form role="search" aria-label="Users" onSubmit={search} className="flex w-full max-w-md items-end gap-2">
          <div className="min-w-0 flex-1">
            <label htmlFor={searchId} className={labelClass}>
              Search
            </label>
            <input id={searchId} type="search" value={text} onChange={(e) => setText(e.target.value)} placeholder="Username, name or email" className={`${inputClass} mt-1`} />
          </div>
          <button type="submit" className={secondaryButton}>
            Search
          </button>
        </form>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={filters.include_deleted === "true"}
            onChange={(e) => setFilters((f) => ({ ...f, include_deleted: e.target.checked ? "true" : undefined }))}
            className="size-4 accent-brand-600"
          />
          Show deleted users
        </label>
      </div>

      <div className="mt-6">{content()}</div>

      <CreateUserDialog
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={(user) => {
          setCreating(false);
          void queryClient.invalidateQueries(trpc.users.list.pathFilter());
          router.push(`/console/users/${user.id}?created=1`);
        }}
      />
    </section>
  );
}
