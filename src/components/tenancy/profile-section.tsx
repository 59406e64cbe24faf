"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { ORGANIZATION_STATUSES, SUBSCRIPTION_TIERS, updateOrganizationInput, type Organization } from "@/lib/schemas/organizations";
import { dangerButton, primaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { useOrganization } from "./organization-frame";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { FormButtonsInline, optionsOf, SelectField, TextAreaField, TextField, useFormErrors } from "@/components/ui/form";
import { FormAlert, Notice } from "@/components/ui/states";
import { PageHeader } from "@/components/ui/page-header";

// An organization's profile (editable by its admins), its subscription (the platform's decision,
// through its own procedure), and deletion — or, once deleted, restoring it.

const PROFILE_LABELS = {
  name: "Name",
  display_name: "Display name",
  domain: "Domain",
  description: "Description",
  contact_email: "Contact email",
  website: "Website",
  logo_url: "Logo URL",
  country: "Country",
  timezone: "Time zone",
} as const;
type ProfileField = keyof typeof PROFILE_LABELS;

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
          <ProfileForm key={`profile-${org.data.updated_at}`} org={org.data} onSaved={() => setNotice("Profile saved.")} />
          <SubscriptionForm key={`subscription-${org.data.updated_at}`} org={org.data} onSaved={() => setNotice("Subscription updated.")} />
          <DeleteOrganization org={org.data} onDeleted={() => setNotice("Organization deleted. A sys_admin can still restore it here.")} />
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

function ProfileForm({ org, onSaved }: { org: Organization; onSaved: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshOrganization();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(PROFILE_LABELS, formRef);
  const [values, setValues] = useState<Record<ProfileField, string>>(() => ({
    name: org.name,
    display_name: org.display_name ?? "",
    domain: org.domain ?? "",
    description: org.description ?? "",
    contact_email: org.contact_email ?? "",
    website: org.website ?? "",
    logo_url: org.logo_url ?? "",
    country: org.country ?? "",
    timezone: org.timezone ?? "",
  }));
  const set = (field: ProfileField) => (event: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: event.target.value }));

  const save = useMutation(
    trpc.organizations.update.mutationOptions({
      onSuccess: (saved) => {
        refresh(saved);
        onSaved();
      },
      onError: form.fromServer,
    }),
  );

  function submit(event: FormEvent) {
    event.preventDefault();
    const orNull = (text: string) => (text.trim() === "" ? null : text.trim());
    const { name, description, ...rest } = values;
    const input = form.check(updateOrganizationInput, {
      name,
      description: description.trim() === "" ? null : description,
      ...Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, orNull(v)])),
    });
    if (input) save.mutate({ org_id: org.id, ...input });
  }

  const { errors } = form;
  return (
    <section aria-labelledby="profile-heading">
      <PageHeader level={2} id="profile-heading" title="Profile">
        What the organization shows of itself. Its own admins may edit it too.
      </PageHeader>
      <form ref={formRef} noValidate onSubmit={submit} className="mt-4 space-y-5 rounded-xl border border-slate-200 bg-white p-6 dark:border-slate-800 dark:bg-slate-900">
        <div className="grid gap-5 sm:grid-cols-2">
          <TextField label="Name" value={values.name} onChange={set("name")} error={errors.name} autoComplete="off" />
          <TextField label="Display name" value={values.display_name} onChange={set("display_name")} error={errors.display_name} autoComplete="off" />
          <TextField label="Domain" value={values.domain} onChange={set("domain")} error={errors.domain} placeholder="example.com" autoComplete="off" />
          <TextField label="Contact email" type="email" value={values.contact_email} onChange={set("contact_email")} error={errors.contact_email} autoComplete="off" />
          <TextField label="Website" type="url" value={values.website} onChange={set("website")} error={errors.website} placeholder="https://example.com" autoComplete="off" />
          <TextField label="Logo URL" type="url" value={values.logo_url} onChange={set("logo_url")} error={errors.logo_url} placeholder="https://…" autoComplete="off" hint="https only." />
          <TextField label="Country" value={values.country} onChange={set("country")} error={errors.country} autoComplete="off" />
          <TextField label="Time zone" value={values.timezone} onChange={set("timezone")} error={errors.timezone} placeholder="Europe/Paris" autoComplete="off" />
        </div>
        <TextAreaField label="Description" value={values.description} onChange={set("description")} error={errors.description} />
        <FormAlert message={errors.form} />
        <FormButtonsInline>
          <button type="submit" disabled={save.isPending} className={primaryButton}>
            {save.isPending ? "Saving…" : "Save profile"}
          </button>
        </FormButtonsInline>
      </form>
    </section>
  );
}

const SUBSCRIPTION_LABELS = { tier: "Subscription tier", status: "Status" } as const;

function SubscriptionForm({ org, onSaved }: { org: Organization; onSaved: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshOrganization();
  const formRef = useRef<HTMLFormElement>(null);
  const form = useFormErrors(SUBSCRIPTION_LABELS, formRef);
  const [tier, setTier] = useState<Organization["tier"]>(org.tier);
  const [status, setStatus] = useState(org.status);
  const update = useMutation(
    trpc.organizations.updateSubscription.mutationOptions({
      onSuccess: (saved) => {
        refresh(saved);
        onSaved();
      },
      onError: form.fromServer,
    }),
  );
  const unchanged = tier === org.tier && status === org.status;

  function submit(event: FormEvent) {
    event.preventDefault();
    form.set({});
    update.mutate({ org_id: org.id, tier, status: status as (typeof ORGANIZATION_STATUSES)[number] });
  }

  return (
    <section aria-labelledby="subscription-heading">
      <PageHeader level={2} id="subscription-heading" title="Subscription">
        The platform’s decision, not the tenant’s: the tier sets the quotas (orchestrators, central points, members) and what the organization may use.
      </PageHeader>
      <form ref={formRef} noValidate onSubmit={submit} className="mt-4 space-y-5 rounded-xl border border-slate-200 bg-white p-6 dark:border-slate-800 dark:bg-slate-900">
        <div className="grid gap-5 sm:grid-cols-2">
          <SelectField
            label="Subscription tier"
            value={tier}
            onChange={(event) => setTier(event.target.value as Organization["tier"])}
            options={optionsOf(SUBSCRIPTION_TIERS)}
            error={form.errors.tier}
            hint="Central points need pro or higher."
          />
          <SelectField label="Status" value={status} onChange={(event) => setStatus(event.target.value)} options={optionsOf(ORGANIZATION_STATUSES)} error={form.errors.status} />
        </div>
        <FormAlert message={form.errors.form} />
        <FormButtonsInline>
          <button type="submit" disabled={update.isPending || unchanged} className={primaryButton}>
            {update.isPending ? "Updating…" : "Update subscription"}
          </button>
        </FormButtonsInline>
      </form>
    </section>
  );
}

function DeleteOrganization({ org, onDeleted }: { org: Organization; onDeleted: () => void }) {
  const trpc = useTRPC();
  const refresh = useRefreshOrganization();
  const [confirming, setConfirming] = useState<Organization | null>(null);
  const remove = useMutation(trpc.organizations.delete.mutationOptions());
  return (
    <section aria-labelledby="delete-heading" className="rounded-xl border border-red-200 p-6 dark:border-red-900">
      <PageHeader level={2}
        id="delete-heading"
        title="Delete organization"
        actions={
          <button type="button" onClick={() => setConfirming(org)} className={dangerButton}>
            Delete organization
          </button>
        }
      >
        The organization and everything in it disappear from every list and from the API. A sys_admin can restore it.
      </PageHeader>
      <ConfirmDialog
        subject={confirming}
        title={(o) => `Delete “${o.name}”?`}
        body={() => (
          <>
            Its settings, LLM configs, orchestrator instances and central points stop being served at once, and its members lose access to
            it. Nothing is erased: a sys_admin can restore the organization from this page.
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
    </section>
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
    <section aria-labelledby="restore-heading" className="rounded-xl border border-amber-200 bg-amber-50 p-6 dark:border-amber-900 dark:bg-amber-950">
      <PageHeader level={2}
        id="restore-heading"
        title="This organization is deleted"
        actions={
          <button type="button" onClick={() => restore.mutate({ org_id: org.id })} disabled={restore.isPending} className={primaryButton}>
            {restore.isPending ? "Restoring…" : "Restore organization"}
          </button>
        }
      >
        Only sys_admins see it. Restoring brings it back with everything it held.
      </PageHeader>
      {restore.error && (
        <div className="mt-4">
          <FormAlert message={messageOf(restore.error)} />
        </div>
      )}
    </section>
  );
}
