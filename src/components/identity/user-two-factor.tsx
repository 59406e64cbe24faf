"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { User } from "@/lib/schemas/users";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { HeadedSection } from "@/components/ui/page-header";
import { Loaded } from "@/components/ui/states";
import { dangerButton } from "@/components/ui/styles";
import { useTRPC } from "@/trpc/react";

// Another user's two-factor authentication: whether it is on, and the reset for one who lost both
// the device and the recovery codes (refused for a sys_admin unless the caller is one).

export function TwoFactorAdminSection({ user, onNotice }: { user: User; onNotice: (text: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.users.twoFactor.queryOptions({ user_id: user.id }));
  const reset = useMutation(trpc.users.resetTwoFactor.mutationOptions());
  const [confirming, setConfirming] = useState<User | null>(null);
  return (
    <HeadedSection level={2} className="mt-10" title="Two-factor authentication">
      <Loaded query={status} what="two-factor authentication">
        {(state) => (
          <div className="mt-4 space-y-4">
            <p className="text-sm">
              {state.enabled
                ? `On: sign-in asks ${user.username} for a code. ${state.recovery_codes_left} of 10 recovery codes left.`
                : `Off: ${user.username} signs in with the password alone.`}
              {state.required &&
                !state.enabled &&
                " The platform requires it of sys_admins: they will be asked to set it up."}
            </p>
            {state.enabled && (
              <button type="button" className={dangerButton} onClick={() => setConfirming(user)}>
                Reset two-factor
              </button>
            )}
          </div>
        )}
      </Loaded>
      <ConfirmDialog
        subject={confirming}
        title={(target) => `Reset the two-factor authentication of ${target.username}?`}
        body={(target) => (
          <>
            The secret and the recovery codes of {target.username} are dropped: they sign in with the password, then set
            it up again.
          </>
        )}
        confirmLabel="Reset two-factor"
        pendingLabel="Resetting…"
        onClose={() => setConfirming(null)}
        run={(target) => reset.mutateAsync({ user_id: target.id })}
        onDone={(target) => {
          setConfirming(null);
          onNotice(`Two-factor authentication of ${target.username} reset.`);
          void queryClient.invalidateQueries(trpc.users.twoFactor.pathFilter());
        }}
      />
    </HeadedSection>
  );
}
