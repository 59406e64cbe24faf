"use client";

import { keepPreviousData, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { inputClass, labelClass, primaryButton, secondaryButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";
import { CreateUserDialog } from "./create-user-dialog";
import { userListOptions, type UserFilters } from "./queries";
import { Badge, EmptyState, ErrorState, LoadingState, mutedText, ShowMore, tableClass, tableFrame, tbodyClass, td, textLink, th, theadClass, When } from "./ui";

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
      <>
        <div className={tableFrame}>
          <table className={tableClass} aria-busy={list.isFetching}>
            <caption className="sr-only">Users</caption>
            <thead className={theadClass}>
              <tr>
                <th scope="col" className={th}>Username</th>
                <th scope="col" className={th}>Display name</th>
                <th scope="col" className={th}>Email</th>
                <th scope="col" className={th}>Sign-in</th>
                <th scope="col" className={th}>Created</th>
              </tr>
            </thead>
            <tbody className={tbodyClass}>
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
            </tbody>
          </table>
        </div>
        <ShowMore visible={list.hasNextPage} loading={list.isFetchingNextPage} onClick={() => list.fetchNextPage()} label="Show more users" />
      </>
    );
  }

  return (
    <section aria-labelledby="users-heading">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="max-w-2xl">
          <h1 id="users-heading" className="text-2xl font-bold tracking-tight">
            Users
          </h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
            Everyone who can sign in: their organizations, roles, linked identities and API keys are on their page.
          </p>
        </div>
        <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
          Create user
        </button>
      </div>

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
            checked={filters.include_deleted === true}
            onChange={(e) => setFilters((f) => ({ ...f, include_deleted: e.target.checked || undefined }))}
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
