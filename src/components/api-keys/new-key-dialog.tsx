"use client";

import type { CreatedApiKey } from "@/lib/schemas/api-keys";
import { Fact, ShownOnceDialog } from "@/components/ui/secret-field";
import { mutedText } from "@/components/ui/styles";
import { CodeList } from "@/components/ui/values";
import { formatTimestamp } from "./format";

// The one moment the raw key is shown: copy it now, it is not stored anywhere to show again.

export function NewKeyDialog({ created, onClose }: { created: CreatedApiKey | null; onClose: () => void }) {
  const dropped = created ? created.scopes.filter((s) => !created.effective_scopes.includes(s)) : [];
  return (
    <ShownOnceDialog
      secret={created?.raw_key ?? null}
      title="Copy your new API key"
      label="New API key"
      noun="key"
      onClose={onClose}
      facts={
        created && (
          <>
            <Fact term="Name">{created.name}</Fact>
            <Fact term="Send it as">
              <span className="font-mono">X-API-KEY: {created.key_prefix}…</span>
            </Fact>
            <Fact term="Expires">{formatTimestamp(created.expires_at)}</Fact>
            <Fact term="Carries">
              <CodeList items={created.effective_scopes} inline />
            </Fact>
            {dropped.length > 0 && (
              <Fact term="Never carries">
                <CodeList items={dropped} inline />
                <span className={mutedText}>Dangerous permissions never reach a key.</span>
              </Fact>
            )}
          </>
        )
      }
    >
      <p className={`text-sm ${mutedText}`}>If it is lost, create a new key and revoke this one.</p>
    </ShownOnceDialog>
  );
}
