import Link from "next/link";
import type { ReactNode } from "react";
import { Badge } from "@/components/ui/badge";
import { mutedText, textLink } from "@/components/ui/styles";

// Pieces the identity screens show alike: a role's name, the org roles someone holds, and what
// removing someone from an organization does.

type RoleRef = { id: string; name: string };

/** A role's name, leading to its editor, marked when it is built in. */
export function RoleName({ role }: { role: RoleRef & { is_built_in: boolean } }) {
  return (
    <>
      <Link href={`/console/roles/${role.id}`} className={textLink}>
        {role.name}
      </Link>
      {role.is_built_in && (
        <span className="ml-2">
          <Badge>Built-in</Badge>
        </span>
      )}
    </>
  );
}

/** Org roles held, each with an optional action (revoke) beside it. */
export function RoleBadges({ roles, action }: { roles: readonly RoleRef[]; action?: (role: RoleRef) => ReactNode }) {
  if (roles.length === 0) return <span className={mutedText}>None</span>;
  return (
    <ul className="flex flex-wrap gap-1">
      {roles.map((role) => (
        <li key={role.id} className="inline-flex items-center gap-0.5">
          <Badge tone="brand">{role.name}</Badge>
          {action?.(role)}
        </li>
      ))}
    </ul>
  );
}

/** What removing a member from an organization does. */
export function RemovalWarning({
  username,
  where,
  roles,
}: {
  username: string;
  where: string;
  roles: readonly RoleRef[];
}) {
  return (
    <>
      {username} loses every org role {where}
      {roles.length > 0 && <> ({roles.map((r) => r.name).join(", ")})</>}, at once — their API keys included. Adding
      them back starts from no roles.
    </>
  );
}

/** A user's username, leading to their page, with their display name under it when it differs. */
export function UserLink({ user }: { user: { user_id: string; username: string; display_name: string | null } }) {
  return (
    <>
      <Link href={`/console/users/${user.user_id}`} className={textLink}>
        {user.username}
      </Link>
      {user.display_name && user.display_name !== user.username && (
        <span className={`block text-xs font-normal ${mutedText}`}>{user.display_name}</span>
      )}
    </>
  );
}
