"use client";

import { keepPreviousData, useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { userListOptions } from "./queries";
import { Badge } from "@/components/ui/badge";
import { useOpenedOnce } from "@/components/ui/dialog";
import { ShowDeletedField } from "@/components/ui/fields";
import { useListFilters } from "@/components/ui/filter-bar";
import { ListScreen } from "@/components/ui/resource-section";
import { mutedText, primaryButton, textLink } from "@/components/ui/styles";
import { td } from "@/components/ui/table";
import { WhenCell } from "@/components/ui/values";
import { onDemand } from "@/components/ui/form-loading";

// Users: search by username, display name or email; deleted users on request (sys_admins); create
// a user, who opens on their own page. The create form (with its validation) loads when first
// opened, not with the page.

const CreateUserDialog = onDemand(() => import("./create-user-dialog").then((m) => m.CreateUserDialog), {
  loading: () => null,
});

export function UsersScreen() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const filters = useListFilters({ q: "", include_deleted: false });
  const { q, include_deleted } = filters.applied;
  const [creating, setCreating] = useState(false);
  const createOpened = useOpenedOnce(creating);
  const list = useInfiniteQuery({
    ...userListOptions(trpc, { ...(q ? { q } : {}), ...(include_deleted ? { include_deleted: "true" } : {}) }),
    placeholderData: keepPreviousData,
  });
  const createButton = (
    <button type="button" onClick={() => setCreating(true)} className={primaryButton}>
      Create user
    </button>
  );

  return (
    <ListScreen
      title="Users"
      description="Everyone who can sign in: their organizations, roles, linked identities and API keys are on their page."
      action={createButton}
      placeholder="Username, name or email"
      filters={filters}
      filterFields={<ShowDeletedField noun="users" filters={filters} />}
      query={list}
      columns={["Username", "Display name", "Email", "Sign-in", "Created"]}
      row={(user) => (
        <>
          <th scope="row" className={`${td} text-left font-medium wrap-anywhere`}>
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
          <td className={`${td} wrap-anywhere`}>{user.email ?? <span className={mutedText}>—</span>}</td>
          <td className={td}>
            {user.kind === "service" ? (
              <Badge tone="brand">Service account</Badge>
            ) : user.has_password ? (
              <Badge>Password</Badge>
            ) : (
              <Badge tone="brand">OAuth only</Badge>
            )}
          </td>
          <WhenCell iso={user.created_at} />
        </>
      )}
      empty={{ title: "No users yet", body: "Create the first user who signs in." }}
    >
      {createOpened && (
        <CreateUserDialog
          open={creating}
          onClose={() => setCreating(false)}
          onCreated={(user) => {
            setCreating(false);
            void queryClient.invalidateQueries(trpc.users.list.pathFilter());
            router.push(`/console/users/${user.id}?created=1`);
          }}
        />
      )}
    </ListScreen>
  );
}
