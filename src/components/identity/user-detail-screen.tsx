"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { PasswordReset, User } from "@/lib/schemas/users";
import { messageOf, useTRPC } from "@/trpc/react";
import { userOptions } from "./queries";
import { EffectivePermissionsSection, GrantsSection, MembershipsSection } from "./user-access";
import { ApiKeysSection, IdentitiesSection } from "./user-links";
import { TwoFactorAdminSection } from "./user-two-factor";
import { Badge } from "@/components/ui/badge";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { HeadedSection } from "@/components/ui/page-header";
import { BackLink, FormAlert, Loaded, LoadingState, Notice } from "@/components/ui/states";
import { dangerButton, secondaryButton } from "@/components/ui/styles";

// One user: profile, password, deletion and restore; their organizations, role grants and
// effective permissions; linked identities, two-factor authentication and API keys. A deleted user shows only what restoring
// needs. The profile form and the password reset (with the form library and their validation) load
// in the browser after the page, not with it, as does the activity at the page's foot (the audit
// trail's table and filter bar): what the page weighs stays within its budget with room to spare.

const ProfileForm = onDemand(() => import("./user-profile").then((m) => m.ProfileForm), {
  ssr: false,
  // The form's height on a phone, a tablet and a desktop.
  loading: () => <FormLoading className="min-h-[45.125rem] sm:min-h-[29.5rem] lg:min-h-[28.25rem]" />,
});
const ResetPasswordDialog = onDemand(() => import("./user-profile").then((m) => m.ResetPasswordDialog), {
  ssr: false,
  loading: () => null,
});
const UserActivitySection = onDemand(() => import("@/components/audit/audit-log").then((m) => m.UserActivitySection), {
  ssr: false,
  loading: () => <LoadingState label="Loading the activity…" />,
});
const NewPasswordDialog = onDemand(() => import("./user-profile").then((m) => m.NewPasswordDialog), {
  ssr: false,
  loading: () => null,
});

export function UserDetailScreen({ userId, justCreated }: { userId: string; justCreated: boolean }) {
  const trpc = useTRPC();
  const user = useQuery(userOptions(trpc, userId));
  return (
    <Loaded query={user} what="the user" back={<UsersLink />}>
      {(loaded) => <UserDetail u={loaded} justCreated={justCreated} />}
    </Loaded>
  );
}

function UserDetail({ u, justCreated }: { u: User; justCreated: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState(justCreated ? "User created." : "");
  const [resetting, setResetting] = useState<User | null>(null);
  const [reset, setReset] = useState<PasswordReset | null>(null);
  const [deleting, setDeleting] = useState<User | null>(null);
  const refreshUser = () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.users.get.pathFilter()),
      queryClient.invalidateQueries(trpc.users.list.pathFilter()),
    ]);
  const remove = useMutation(trpc.users.delete.mutationOptions());
  const markVerified = useMutation(
    trpc.users.markEmailVerified.mutationOptions({
      onSuccess: (marked) => {
        setNotice(`${marked.email} marked verified.`);
        void refreshUser();
      },
    }),
  );
  const restore = useMutation(
    trpc.users.restore.mutationOptions({
      onSuccess: (restored) => {
        setNotice(`${restored.username} restored.`);
        void refreshUser();
      },
    }),
  );

  return (
    <div>
      <UsersLink />
      <div className="mt-2 flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight wrap-anywhere">{u.username}</h1>
          <div className="mt-2 flex flex-wrap items-center gap-2 text-sm text-slate-600 dark:text-slate-300">
            {u.display_name && <span>{u.display_name}</span>}
            {u.is_deleted && <Badge tone="bad">Deleted</Badge>}
            {u.email &&
              (u.email_verified_at ? (
                <Badge tone="good">Email verified</Badge>
              ) : (
                <Badge tone="warn">Email not verified</Badge>
              ))}
            {u.kind === "service" ? (
              <Badge tone="brand">Service account: keys only, no sign-in</Badge>
            ) : u.has_password ? (
              <Badge>Password sign-in</Badge>
            ) : (
              <Badge tone="brand">OAuth only</Badge>
            )}
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          {u.is_deleted ? (
            <button
              type="button"
              onClick={() => restore.mutate({ user_id: u.id })}
              disabled={restore.isPending}
              className={secondaryButton}
            >
              {restore.isPending ? "Restoring…" : "Restore user"}
            </button>
          ) : (
            <>
              {u.email && !u.email_verified_at && (
                <button
                  type="button"
                  onClick={() => markVerified.mutate({ user_id: u.id })}
                  disabled={markVerified.isPending}
                  className={secondaryButton}
                >
                  {markVerified.isPending ? "Marking…" : "Mark email verified"}
                </button>
              )}
              <button type="button" onClick={() => setResetting(u)} className={secondaryButton}>
                Reset password
              </button>
              <button type="button" onClick={() => setDeleting(u)} className={dangerButton}>
                Delete user
              </button>
            </>
          )}
        </div>
      </div>

      <div className="mt-4">
        <Notice text={notice} />
        <FormAlert message={restore.error ? messageOf(restore.error) : undefined} />
        <FormAlert message={markVerified.error ? messageOf(markVerified.error) : undefined} />
      </div>

      <HeadedSection
        level={2}
        className="mt-10"
        title="Profile"
        description={u.is_deleted ? "A deleted user cannot sign in. Restore them to change anything." : undefined}
      >
        <div className="mt-4">
          {/* Keyed by updated_at: a saved or restored user starts the form from what the server holds. */}
          <ProfileForm
            key={u.updated_at}
            user={u}
            onSaved={(saved) => {
              setNotice(`Profile of ${saved.username} saved.`);
              void refreshUser();
            }}
          />
        </div>
      </HeadedSection>

      {!u.is_deleted && (
        <>
          <MembershipsSection user={u} onNotice={setNotice} />
          <GrantsSection user={u} onNotice={setNotice} />
          <EffectivePermissionsSection user={u} />
          <IdentitiesSection user={u} onNotice={setNotice} />
          <TwoFactorAdminSection user={u} onNotice={setNotice} />
          <ApiKeysSection user={u} onNotice={setNotice} />
        </>
      )}
      <UserActivitySection userId={u.id} />

      <ResetPasswordDialog
        user={resetting}
        onClose={() => setResetting(null)}
        onDone={(result) => {
          setResetting(null);
          setNotice(`Password of ${result.user.username} reset.`);
          if (result.password) setReset(result);
          void refreshUser();
        }}
      />
      <NewPasswordDialog reset={reset} onClose={() => setReset(null)} />
      <ConfirmDialog
        subject={deleting}
        title={(target) => `Delete ${target.username}?`}
        body={(target) => (
          <>
            {target.username} can no longer sign in, and their API keys stop working at once. Their username and email
            become free. A sys_admin can restore the user later (unless someone has taken the username or email
            meanwhile).
          </>
        )}
        confirmLabel="Delete user"
        pendingLabel="Deleting…"
        onClose={() => setDeleting(null)}
        run={(target) => remove.mutateAsync({ user_id: target.id })}
        onDone={(target) => {
          setDeleting(null);
          setNotice(`${target.username} deleted.`);
          void refreshUser();
        }}
      />
    </div>
  );
}

const UsersLink = () => <BackLink href="/console/users">All users</BackLink>;
