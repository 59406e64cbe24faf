"use client";

import { createDomainInput, type CreateDomainInput, type Domain } from "@/lib/schemas/domains";
import { useTRPCClient } from "@/trpc/react";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, useSchemaForm } from "@/components/ui/form";
import type { EditorControls } from "@/components/ui/resource-section";

// Claiming a domain (./domains-section.tsx): the name only; the server answers the TXT record to publish.

export function DomainForm({
  orgId,
  controls,
  onAdded,
}: {
  orgId: string;
  controls: EditorControls;
  onAdded: (domain: Domain) => void;
}) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ domain: string }, CreateDomainInput>({
    schema: createDomainInput,
    defaultValues: { domain: "" },
    toInput: (values) => values,
    submit: async (input) => {
      const added = await client.domains.add.mutate({ org_id: orgId, ...input });
      controls.done(`Domain ${added.domain} added: publish its TXT record, then verify it.`);
      onAdded(added);
    },
  });

  return (
    <Form form={form} className="space-y-5">
      <TextField
        name="domain"
        label="Domain"
        autoFocus
        autoComplete="off"
        hint="The domain of your organization’s email addresses, such as example.com. Public email providers are refused."
      />
      <DialogButtons onCancel={controls.cancel} label="Add domain" pendingLabel="Adding…" />
    </Form>
  );
}
