"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { createOrganizationInput, type CreateOrganizationInput } from "@/lib/schemas/organizations";
import { useTRPC, useTRPCClient } from "@/trpc/react";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import { orNull } from "@/components/ui/form-values";
import { SubscriptionFields } from "./profile-forms";

// The form that creates an organization (./organizations-screen.tsx), then opens its page.

type CreateOrganizationValues = Record<
  "name" | "display_name" | "domain" | "contact_email" | "website" | "tier" | "status",
  string
>;

export function CreateOrganizationForm({ onCancel }: { onCancel: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const router = useRouter();
  const queryClient = useQueryClient();
  const form = useSchemaForm<CreateOrganizationValues, CreateOrganizationInput>({
    schema: createOrganizationInput,
    defaultValues: {
      name: "",
      display_name: "",
      domain: "",
      contact_email: "",
      website: "",
      tier: "free",
      status: "active",
    },
    // Blank optional fields are left out.
    toInput: ({ name, tier, status, ...optional }) => ({
      name,
      tier,
      status,
      ...Object.fromEntries(Object.entries(optional).map(([k, v]) => [k, orNull(v) ?? undefined])),
    }),
    submit: async (input) => {
      const org = await client.organizations.create.mutate(input);
      void queryClient.invalidateQueries(trpc.organizations.list.pathFilter());
      router.push(`/console/organizations/${org.id}`);
    },
  });

  return (
    <Form form={form} className="space-y-5">
      <TextField
        name="name"
        label="Name"
        autoFocus
        autoComplete="off"
        hint="How the platform refers to the organization."
      />
      <TextField name="display_name" label="Display name" autoComplete="off" />
      <div className="grid gap-5 sm:grid-cols-2">
        <TextField
          name="domain"
          label="Domain"
          placeholder="example.com"
          autoComplete="off"
          hint="Optional; unique among organizations."
        />
        <TextField name="contact_email" label="Contact email" type="email" autoComplete="off" />
      </div>
      <TextField name="website" label="Website" type="url" placeholder="https://example.com" autoComplete="off" />
      <SubscriptionFields />
      <DialogButtons onCancel={onCancel} label="Create organization" pendingLabel="Creating…" />
    </Form>
  );
}
