"use client";

import { keepPreviousData, useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { isDangerousScope } from "@/components/api-keys/catalog";
import { useTRPC } from "@/trpc/react";
import { roleListOptions, type RoleFilters } from "./queries";
import { RoleName } from "./parts";
import { useListFilters } from "@/components/ui/filter-bar";
import { ListScreen } from "@/components/ui/resource-section";
import { Segmented } from "@/components/ui/segmented";
import { mutedText, primaryButton } from "@/components/ui/styles";
import { td } from "@/components/ui/table";

// Roles: the built-in ones and custom ones, system or org scoped, searched by name, with how many
// permissions each holds (dangerous ones counted apart). A role opens in its editor.

const SCOPES: { value: RoleFilters["scope"]; label: string }[] = [
  { value: undefined, label: "All" },
  { value: "system", label: "System" },
  { value: "org", label: "Organization" },
];

export function RolesScreen() {
  const trpc = useTRPC();
  const filters = useListFilters({ q: "", scope: undefined as RoleFilters["scope"] });
  const { q, scope } = filters.applied;
  const list = useInfiniteQuery({
    ...roleListOptions(trpc, { ...(q ? { q } : {}), ...(scope ? { scope } : {}) }),
    placeholderData: keepPreviousData,
  });
  const createButton = (
    <Link href="/console/roles/new" className={primaryButton}>
      Create role
    </Link>
  );

  return (
    <ListScreen
      title="Roles"
      description="A system role is granted globally and may hold any permission; an org role is granted in one organization and holds org permissions only. Built-in roles follow the permission catalog and cannot be renamed or deleted."
      action={createButton}
      placeholder="Name"
      filters={filters}
      filterFields={<Segmented legend="Scope" name="scope" options={SCOPES} {...filters.choice("scope")} />}
      query={list}
      columns={["Name", "Scope", "Permissions", "Description"]}
      row={(role) => {
        const dangerous = role.permissions.filter(isDangerousScope).length;
        return (
          <>
            <th scope="row" className={`${td} text-left font-medium`}>
              <RoleName role={role} />
            </th>
            <td className={td}>{role.scope === "system" ? "System" : "Organization"}</td>
            <td className={`${td} whitespace-nowrap`}>
              {role.permissions.length}
              {dangerous > 0 && <span className={mutedText}> ({dangerous} dangerous)</span>}
            </td>
            <td className={`${td} max-w-md`}>{role.description ?? <span className={mutedText}>—</span>}</td>
          </>
        );
      }}
      empty={{ title: "No roles yet", body: "Create a role to grant a set of permissions." }}
    />
  );
}
