"use client";

import QRCode from "qrcode";
import { useEffect, useState } from "react";
import {
  confirmTwoFactorInput,
  turnOffTwoFactorInput,
  type ConfirmTwoFactorInput,
  type TurnOffTwoFactorInput,
} from "@/lib/schemas/two-factor";
import { TextField } from "@/components/ui/fields";
import { DialogButtons, Form, SubmitRow, useSchemaForm } from "@/components/ui/form";
import { SecretField } from "@/components/ui/secret-field";
import { useTRPCClient } from "@/trpc/react";

// The forms of two-factor authentication (./two-factor-section.tsx): confirm a new setup with a code
// of the app that scanned its QR code, and turn it off.

/** A setup begun: the secret and the otpauth URL its QR code shows. */
export interface Setup {
  secret: string;
  otpauth_url: string;
}

export function SetupForm({ setup, onConfirmed }: { setup: Setup; onConfirmed: (codes: string[]) => void }) {
  const client = useTRPCClient();
  const [qr, setQr] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void QRCode.toDataURL(setup.otpauth_url, { margin: 1, width: 192 }).then((url) => current && setQr(url));
    return () => {
      current = false;
    };
  }, [setup.otpauth_url]);
  const form = useSchemaForm<{ code: string }, ConfirmTwoFactorInput>({
    schema: confirmTwoFactorInput,
    defaultValues: { code: "" },
    submit: async (input) => onConfirmed((await client.account.confirmTwoFactor.mutate(input)).recovery_codes),
  });
  return (
    <div className="space-y-4">
      <p className="text-sm">
        Scan this QR code with your authenticator app, or type the setup key into it. Then enter the code it shows.
      </p>
      {qr && (
        // eslint-disable-next-line @next/next/no-img-element -- a data: URL made in the browser
        <img
          src={qr}
          alt="QR code of the setup key"
          width={192}
          height={192}
          className="rounded border border-slate-200"
        />
      )}
      <SecretField label="Setup key" value={setup.secret} copyLabel="Copy setup key" />
      <Form form={form} label="Verify two-factor authentication" className="space-y-4">
        <TextField
          name="code"
          label="Authentication code"
          autoComplete="one-time-code"
          inputMode="numeric"
          hint="The 6-digit code your app shows now."
        />
        <SubmitRow label="Verify" pendingLabel="Verifying…" />
      </Form>
    </div>
  );
}

export function TurnOffForm({ onCancel, onDone }: { onCancel: () => void; onDone: () => void }) {
  const client = useTRPCClient();
  const form = useSchemaForm<{ password: string; code: string }, TurnOffTwoFactorInput>({
    schema: turnOffTwoFactorInput,
    defaultValues: { password: "", code: "" },
    submit: async (input) => {
      await client.account.turnOffTwoFactor.mutate(input);
      onDone();
    },
  });
  return (
    <Form form={form} className="space-y-5">
      <TextField name="password" label="Password" type="password" autoComplete="current-password" />
      <TextField
        name="code"
        label="Authentication code"
        autoComplete="one-time-code"
        hint="A code of your authenticator app, or a recovery code."
      />
      <DialogButtons onCancel={onCancel} label="Turn off" pendingLabel="Turning off…" />
    </Form>
  );
}
