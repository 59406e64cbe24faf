"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { isDangerousScope } from "@/components/api-keys/catalog";
import { useTRPC } from "@/trpc/react";
import { roleListOptions, type RoleFilters } from "./queries";
import { Badge } from "@/components/ui/badge";
import { EmptyState, ErrorState, LoadingState } from "@/components/ui/states";
import { mutedText, primaryButton, textLink } from "@/components/ui/styles";
import { DataTable, td } from "@/components/ui/table";
import { PageHeader } from "@/components/ui/page-header";

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
      <DataTable caption="Roles" columns={["Name", "Scope", "Permissions", "Description"]} busy={list.isFetching} more={{ visible: list.hasNextPage, loading: list.isFetchingNextPage, onClick: () => list.fetchNextPage(), label: "Show more roles" }}>
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
      </DataTable>
    );
  }

  return (
    <section aria-labelledby="roles-heading">
      <PageHeader
        id="roles-heading"
        title="Roles"
        actions={
          <Link href="/console/roles/new" className={primaryButton}>
            Create role
          </Link>
        }
      >
        A system role is granted globally and may hold any permission; an org role is granted in one organization and holds org
        permissions only. Built-in roles follow the permission catalog and cannot be renamed or deleted.
      </PageHeader>

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
