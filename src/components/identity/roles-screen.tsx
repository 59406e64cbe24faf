"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { primaryButton } from "@/components/ui/styles";
import { isDangerousScope } from "@/components/api-keys/catalog";
import { useTRPC } from "@/trpc/react";
import { roleListOptions, type RoleFilters } from "./queries";
import { Badge, EmptyState, ErrorState, LoadingState, mutedText, ShowMore, tableClass, tableFrame, tbodyClass, td, textLink, th, theadClass } from "./ui";

// Roles: the built-in ones and custom ones, system or org scoped, with how many permissions each
// holds (dangerous ones counted apart). A role opens in its editor.

const SCOPES: { value: RoleFilters["scope"]; label: string }[] = [
  { value: undefined, label: "All" },
  { value: "system", label: "System" },
  { value: "org", label: "Organization" },
];

export function RolesScreen() {
  const trpc = useTRPC();
  const [scope, setScope] = useState<RoleFilters["scope"]>(undefined);
  const list = useInfiniteQuery({ ...roleListOptions(trpc, scope ? { scope } : {}), placeholderData: keepPreviousData });
  const roles = list.data?.pages.flatMap((page) => page.data) ?? [];

  function content() {
    if (list.isPending) return <LoadingState label="Loading roles…" />;
    if (list.isError && roles.length === 0) return <ErrorState title="The roles could not be loaded." error={list.error} onRetry={() => list.refetch()} />;
    if (roles.length === 0) return <EmptyState title="No roles of this scope." />;
    return (
      <>
        <div className={tableFrame}>
          <table className={tableClass} aria-busy={list.isFetching}>
            <caption className="sr-only">Roles</caption>
            <thead className={theadClass}>
              <tr>
                <th scope="col" className={th}>Name</th>
                <th scope="col" className={th}>Scope</th>
                <th scope="col" className={th}>Permissions</th>
                <th scope="col" className={th}>Description</th>
              </tr>
            </thead>
            <tbody className={tbodyClass}>
              {roles.map((role) => {
                const dangerous = role.permissions.filter(isDangerousScope).length;
                return (
                  <tr key={role.id}>
                    <th scope="row" className={`${td} text-left font-medium`}>
                      <Link href={`/console/roles/${role.id}`} className={textLink}>
                        {role.name}
                      </Link>
                      {role.is_built_in && (
                        <span className="ml-2">
                          <Badge>Built-in</Badge>
                        </span>
                      )}
                    </th>
                    <td className={td}>{role.scope === "system" ? "System" : "Organization"}</td>
                    <td className={`${td} whitespace-nowrap`}>
                      {role.permissions.length}
                      {dangerous > 0 && <span className={mutedText}> ({dangerous} dangerous)</span>}
                    </td>
                    <td className={`${td} max-w-md`}>{role.description ?? <span className={mutedText}>—</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <ShowMore visible={list.hasNextPage} loading={list.isFetchingNextPage} onClick={() => list.fetchNextPage()} label="Show more roles" />
      </>
    );
  }

  return (
    <section aria-labelledby="roles-heading">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="max-w-2xl">
          <h1 id="roles-heading" className="text-2xl font-bold tracking-tight">
            Roles
          </h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-300">
            A system role is granted globally and may hold any permission; an org role is granted in one organization and holds org
            permissions only. Built-in roles follow the permission catalog and cannot be renamed or deleted.
          </p>
        </div>
        <Link href="/console/roles/new" className={primaryButton}>
          Create role
        </Link>
      </div>

      <fieldset className="mt-6">
        <legend className="text-sm font-medium">Scope</legend>
        <div className="mt-1 inline-flex rounded-md border border-slate-300 bg-white p-0.5 dark:border-slate-700 dark:bg-slate-900">
          {SCOPES.map((option) => (
            <label
              key={option.label}
              className="cursor-pointer rounded px-3 py-1.5 text-sm has-checked:bg-brand-600 has-checked:text-white has-focus-visible:outline-2 has-focus-visible:outline-brand-500"
            >
              <input type="radio" name="scope" checked={scope === option.value} onChange={() => setScope(option.value)} className="sr-only" />
              {option.label}
            </label>
          ))}
        </div>
      </fieldset>

      <div className="mt-6">{content()}</div>
    </section>
  );
}
