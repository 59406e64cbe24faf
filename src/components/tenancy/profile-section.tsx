"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { Organization } from "@/lib/schemas/organizations";
import { dangerButton, primaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { useOrganization, useRefreshOrganization } from "./organization-frame";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FormLoading, onDemand } from "@/components/ui/form-loading";
import { FormAlert, Notice } from "@/components/ui/states";
import { HeadedSection } from "@/components/ui/page-header";

// An organization's profile (editable by its admins), its subscription (the platform's decision,
// through its own procedure), and deletion — or, once deleted, restoring it. The profile and
// subscription forms (with the form library and their validation) load in the browser after the
// page, not with it; their headings come with the page, so that what it shows first does not wait
// for a form's script.

// Each reserves the height of its form on a phone and on a wider screen.
const ProfileForm = onDemand(() => import("./profile-forms").then((m) => m.ProfileForm), {
  ssr: false,
  loading: () => <FormLoading className="mt-4 min-h-[56.75rem] sm:min-h-[36.25rem]" />,
});
const SubscriptionForm = onDemand(() => import("./profile-forms").then((m) => m.SubscriptionForm), {
  ssr: false,
  loading: () => <FormLoading className="mt-4 min-h-[16.875rem] sm:min-h-[11.875rem]" />,
});

export function ProfileSection({ orgId }: { orgId: string }) {
  const org = useOrganization(orgId);
  const [notice, setNotice] = useState("");
  if (!org.data) return null;
  return (
    <div className="space-y-10">
      <Notice text={notice} />
      {org.data.is_deleted ? (
        <RestoreOrganization org={org.data} onRestored={() => setNotice("Organization restored.")} />
      ) : (
        <>
          <HeadedSection
            title="Profile"
            level={2}
            description="What the organization shows of itself. Its own admins may edit it too."
          >
            <ProfileForm
              key={`profile-${org.data.updated_at}`}
              org={org.data}
              onSaved={() => setNotice("Profile saved.")}
            />
          </HeadedSection>
          <HeadedSection
            title="Subscription"
            level={2}
            description="The platform’s decision, not the tenant’s: the tier sets the quotas (orchestrators, central points, members) and what the organization may use."
          >
            <SubscriptionForm
              key={`subscription-${org.data.updated_at}`}
              org={org.data}
              onSaved={() => setNotice("Subscription updated.")}
            />
          </HeadedSection>
          <DeleteOrganization
            org={org.data}
            onDeleted={() => setNotice("Organization deleted. A sys_admin can still restore it here.")}
          />
        </>
      )}
    </div>
  );
}

function DeleteOrganization({ org, onDeleted }: { org: Organization; onDeleted: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshOrganization();
  const [confirming, setConfirming] = useState<Organization | null>(null);
  const remove = useMutation(trpc.organizations.delete.mutationOptions());
  return (
    <HeadedSection
      title="Delete organization"
      level={2}
      description="The organization and everything in it disappear from every list and from the API. A sys_admin can restore it."
      actions={
        <button type="button" onClick={() => setConfirming(org)} className={dangerButton}>
          Delete organization
        </button>
      }
      className="rounded-xl border border-red-200 p-6 dark:border-red-900"
    >
      <ConfirmDialog
        subject={confirming}
        title={(o) => `Delete “${o.name}”?`}
        body={() => (
          <>
            Its settings, LLM configs, orchestrator instances and central points stop being served at once, and its
            members lose access to it. Nothing is erased: a sys_admin can restore the organization from this page.
          </>
        )}
        confirmLabel="Delete organization"
        pendingLabel="Deleting…"
        onClose={() => setConfirming(null)}
        run={(o) => remove.mutateAsync({ org_id: o.id })}
        onDone={() => {
          setConfirming(null);
          refresh({ ...org, is_deleted: true });
          onDeleted();
        }}
      />
    </HeadedSection>
  );
}

function RestoreOrganization({ org, onRestored }: { org: Organization; onRestored: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshOrganization();
  const restore = useMutation(
    trpc.organizations.restore.mutationOptions({
      onSuccess: (restored) => {
        refresh(restored);
        onRestored();
      },
    }),
  );
  return (
    <HeadedSection
      title="This organization is deleted"
      level={2}
      description="Only sys_admins see it. Restoring brings it back with everything it held."
      actions={
        <button
          type="button"
          onClick={() => restore.mutate({ org_id: org.id })}
          disabled={restore.isPending}
          className={primaryButton}
        >
          {restore.isPending ? "Restoring…" : "Restore organization"}
        </button>
      }
      className="rounded-xl border border-amber-200 bg-amber-50 p-6 dark:border-amber-900 dark:bg-amber-950"
    >
      {restore.error && (
        <div className="mt-4">
          <FormAlert message={messageOf(restore.error)} />
        </div>
      )}
    </HeadedSection>
  );
}
