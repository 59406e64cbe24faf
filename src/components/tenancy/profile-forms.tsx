"use client";

import {
  ORGANIZATION_STATUSES,
  SUBSCRIPTION_TIERS,
  updateOrganizationInput,
  updateSubscriptionInput,
  type Organization,
  type UpdateOrganizationInput,
  type UpdateSubscriptionInput,
} from "@/lib/schemas/organizations";
import type { ReactNode } from "react";
import type { FieldValues } from "react-hook-form";
import { useTRPCClient } from "@/trpc/react";
import { useRefreshOrganization } from "./organization-frame";
import { optionsOf, SelectField, TextAreaField, TextField } from "@/components/ui/fields";
import { Form, SubmitRow, useSchemaForm, type SchemaForm } from "@/components/ui/form";
import { blankAsNull, orNullEach, textsOf } from "@/components/ui/form-values";

// An organization's profile and subscription forms (./profile-section.tsx), and the subscription
// fields the create form (./create-organization-form.tsx) shares.

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

/** A form of the organization's page, in a panel under its section's heading (./profile-section.tsx). */
function FormPanel<V extends FieldValues, O>({ form, children }: { form: SchemaForm<V, O>; children: ReactNode }) {
  return (
    <Form
      form={form}
      className="mt-4 space-y-5 rounded-xl border border-slate-200 bg-white p-6 dark:border-slate-800 dark:bg-slate-900"
    >
      {children}
    </Form>
  );
}

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

export function ProfileForm({ org, onSaved }: { org: Organization; onSaved: () => void }) {
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
    <FormPanel form={form}>
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
    </FormPanel>
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

export function SubscriptionForm({ org, onSaved }: { org: Organization; onSaved: () => void }) {
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
    <FormPanel form={form}>
      <SubscriptionFields />
      <SubmitRow
        label="Update subscription"
        pendingLabel="Updating…"
        disabled={tier === org.tier && status === org.status}
      />
    </FormPanel>
  );
}
