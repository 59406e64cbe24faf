"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  ORGANIZATION_STATUSES,
  SUBSCRIPTION_TIERS,
  updateOrganizationInput,
  updateSubscriptionInput,
  type Organization,
  type UpdateOrganizationInput,
  type UpdateSubscriptionInput,
} from "@/lib/schemas/organizations";
import { dangerButton, primaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC, useTRPCClient } from "@/trpc/react";
import { useOrganization } from "./organization-frame";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { blankAsNull, orNullEach, textsOf } from "@/components/ui/form-values";
import { FormAlert, Notice } from "@/components/ui/states";
import { HeadedSection } from "@/components/ui/page-header";

// An organization's profile (editable by its admins), its subscription (the platform's decision,
// through its own procedure), and deletion — or, once deleted, restoring it.

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
          <ProfileForm
            key={`profile-${org.data.updated_at}`}
            org={org.data}
            onSaved={() => setNotice("Profile saved.")}
          />
          <SubscriptionForm
            key={`subscription-${org.data.updated_at}`}
            org={org.data}
            onSaved={() => setNotice("Subscription updated.")}
          />
          <DeleteOrganization
            org={org.data}
            onDeleted={() => setNotice("Organization deleted. A sys_admin can still restore it here.")}
          />
        </>
      )}
    </div>
  );
}

/** Refreshes every view of this organization: its page and the organizations list. */
function useRefreshOrganization() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (org: Organization) => {
    queryClient.setQueryData(trpc.organizations.get.queryKey({ org_id: org.id, include_deleted: "true" }), org);
    void queryClient.invalidateQueries(trpc.organizations.list.pathFilter());
  };
}

type ProfileValues = Record<
  | "name"
  | "display_name"
  | "domain"
  | "description"
  | "contact_email"
  | "website"
  | "logo_url"
  | "country"
  | "timezone",
  string
>;

const panel = "mt-4 space-y-5 rounded-xl border border-slate-200 bg-white p-6 dark:border-slate-800 dark:bg-slate-900";

const PROFILE_FIELDS = [
  "display_name",
  "domain",
  "description",
  "contact_email",
  "website",
  "logo_url",
  "country",
  "timezone",
] as const;

function ProfileForm({ org, onSaved }: { org: Organization; onSaved: () => void }) {
  const client = useTRPCClient();
  const refresh = useRefreshOrganization();
  const form = useSchemaForm<ProfileValues, UpdateOrganizationInput>({
    schema: updateOrganizationInput,
    defaultValues: { name: org.name, ...textsOf(org, PROFILE_FIELDS) },
    toInput: ({ name, description, ...rest }) => ({ name, ...orNullEach(rest), description: blankAsNull(description) }),
    submit: async (input) => {
      refresh(await client.organizations.update.mutate({ org_id: org.id, ...input }));
      onSaved();
    },
  });

  return (
    <HeadedSection
      title="Profile"
      level={2}
      description="What the organization shows of itself. Its own admins may edit it too."
    >
      <Form form={form} className={panel}>
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField name="name" label="Name" autoComplete="off" />
          <TextField name="display_name" label="Display name" autoComplete="off" />
          <TextField name="domain" label="Domain" placeholder="example.com" autoComplete="off" />
          <TextField name="contact_email" label="Contact email" type="email" autoComplete="off" />
          <TextField name="website" label="Website" type="url" placeholder="https://example.com" autoComplete="off" />
          <TextField
            name="logo_url"
            label="Logo URL"
            type="url"
            placeholder="https://…"
            autoComplete="off"
            hint="https only."
          />
          <TextField name="country" label="Country" autoComplete="off" />
          <TextField name="timezone" label="Time zone" placeholder="Europe/Paris" autoComplete="off" />
        </div>
        <TextAreaField name="description" label="Description" />
        <SubmitRow label="Save profile" />
      </Form>
    </HeadedSection>
  );
}

/** The subscription tier and status of an organization (the platform's decision). */
export function SubscriptionFields() {
  return (
    <div className="grid gap-5 sm:grid-cols-2">
      <SelectField
        name="tier"
        label="Subscription tier"
        options={optionsOf(SUBSCRIPTION_TIERS)}
        hint="Central points need pro or higher."
      />
      <SelectField name="status" label="Status" options={optionsOf(ORGANIZATION_STATUSES)} />
    </div>
  );
}

function SubscriptionForm({ org, onSaved }: { org: Organization; onSaved: () => void }) {
  const client = useTRPCClient();
  const refresh = useRefreshOrganization();
  const form = useSchemaForm<{ tier: string; status: string }, UpdateSubscriptionInput>({
    schema: updateSubscriptionInput,
    defaultValues: { tier: org.tier, status: org.status },
    submit: async (input) => {
      refresh(await client.organizations.updateSubscription.mutate({ org_id: org.id, ...input }));
      onSaved();
    },
  });
  const [tier, status] = form.watch(["tier", "status"]);

  return (
    <HeadedSection
      title="Subscription"
      level={2}
      description="The platform’s decision, not the tenant’s: the tier sets the quotas (orchestrators, central points, members) and what the organization may use."
    >
      <Form form={form} className={panel}>
        <SubscriptionFields />
        <SubmitRow
          label="Update subscription"
          pendingLabel="Updating…"
          disabled={tier === org.tier && status === org.status}
        />
      </Form>
    </HeadedSection>
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
