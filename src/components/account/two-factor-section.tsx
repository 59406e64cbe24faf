"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { HeadedSection } from "@/components/ui/page-header";
import { ShownOnceWarning } from "@/components/ui/secret-field";
import { FormAlert, Loaded } from "@/components/ui/states";
import { primaryButton, secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import type { Setup } from "./two-factor-forms";
import { FormLoading, onDemand } from "@/components/ui/form-loading";

// Two-factor authentication on one's own account: set it up (a QR code and the setup key, a code
// to confirm, the recovery codes shown once), see how many recovery codes are left, turn it off
// (password and a code). The setup form (with its QR code) and the turn-off form load when they
// are first shown, not with the page.

const SetupForm = onDemand(() => import("./two-factor-forms").then((m) => m.SetupForm), {
  loading: () => <FormLoading />,
});
const TurnOffForm = onDemand(() => import("./two-factor-forms").then((m) => m.TurnOffForm), {
  loading: () => <FormLoading />,
});

export function TwoFactorSection({ onSaved }: { onSaved?: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.account.myTwoFactor.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.account.myTwoFactor.queryKey() });
  const [setup, setSetup] = useState<Setup | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [turningOff, setTurningOff] = useState(false);
  const start = useMutation(trpc.account.setUpTwoFactor.mutationOptions({ onSuccess: setSetup }));

  return (
    <HeadedSection
      title="Two-factor authentication"
      level={2}
      className="mt-10"
      description="Sign-in asks for a code of an authenticator app after your password, or one of your recovery codes."
    >
      <Loaded query={status} what="two-factor authentication">
        {(state) => (
          <div className="mt-4 space-y-4">
            {state.enabled ? (
              <>
                <p className="text-sm">
                  Two-factor authentication is <strong>on</strong>. {state.recovery_codes_left} of 10 recovery codes
                  left.
                </p>
                <button type="button" className={secondaryButton} onClick={() => setTurningOff(true)}>
                  Turn off
                </button>
              </>
            ) : setup ? (
              <SetupForm
                setup={setup}
                onConfirmed={(recovery) => {
                  setSetup(null);
                  setCodes(recovery);
                  void refresh();
                }}
              />
            ) : (
              <>
                <p className="text-sm">
                  {state.required
                    ? "The platform requires two-factor authentication of sys_admins: set it up to use the console."
                    : "Two-factor authentication is off."}
                </p>
                <FormAlert message={start.error ? messageOf(start.error) : undefined} />
                <button
                  type="button"
                  className={primaryButton}
                  disabled={start.isPending}
                  onClick={() => start.mutate()}
                >
                  Set up two-factor authentication
                </button>
              </>
            )}
          </div>
        )}
      </Loaded>
      <RecoveryCodesDialog
        codes={codes}
        onClose={() => {
          setCodes(null);
          onSaved?.();
        }}
      />
      <Dialog
        open={turningOff}
        onClose={() => setTurningOff(false)}
        title="Turn off two-factor authentication"
        description="Sign-in will ask for your password only."
      >
        <TurnOffForm
          onCancel={() => setTurningOff(false)}
          onDone={() => {
            setTurningOff(false);
            void refresh();
          }}
        />
      </Dialog>
    </HeadedSection>
  );
}

function RecoveryCodesDialog({ codes, onClose }: { codes: string[] | null; onClose: () => void }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  return (
    <Dialog open={codes !== null} onClose={onClose} title="Save your recovery codes" alert>
      {codes && (
        <div className="space-y-4">
          <ShownOnceWarning what="recovery codes" plural />
          <p className="text-sm">
            Each code signs you in once in place of an authenticator code, should you lose your device.
          </p>
          <ol aria-label="Recovery codes" className="grid grid-cols-2 gap-2 font-mono text-sm">
            {codes.map((code) => (
              <li key={code}>{code}</li>
            ))}
          </ol>
          <p role="status" className="min-h-5 text-sm text-slate-600 dark:text-slate-300">
            {copied === "yes" && "Copied to the clipboard."}
            {copied === "failed" && "Copying failed: select them and copy them yourself."}
          </p>
          <div className="flex justify-end gap-3">
            <button
              type="button"
              className={secondaryButton}
              onClick={() =>
                navigator.clipboard.writeText(codes.join("\n")).then(
                  () => setCopied("yes"),
                  () => setCopied("failed"),
                )
              }
            >
              Copy codes
            </button>
            <button type="button" onClick={onClose} className={primaryButton}>
              I have saved these codes
            </button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
