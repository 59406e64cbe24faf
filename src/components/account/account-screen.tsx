"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { IdentitiesSection } from "@/components/identity/user-links";
import { userOptions } from "@/components/identity/queries";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { HeadedSection } from "@/components/ui/page-header";
import { Loaded, Notice } from "@/components/ui/states";
import { dangerButton, secondaryButton } from "@/components/ui/styles";
import { messageOf, useTRPC } from "@/trpc/react";
import { EmailVerificationBanner } from "./email-verification";
import { TwoFactorSection } from "./two-factor-section";

// The signed-in user's own account: the external accounts that sign in as them (link one while
// signed in, unlink one), two-factor authentication, and their console sessions (end every one of
// them at once).

export interface AccountScreenProps {
  userId: string;
  /** The sign-in providers switched on, by Auth.js id and shown name. */
  providers: { id: string; name: string }[];
  /** What the last linking round trip came back with (?linked= / ?error= of the page). */
  outcome: { linked?: string; error?: string };
}

const LINK_ERRORS: Record<string, string> = {
  IdentityTaken: "That external account is already linked to another user: it was not linked to yours.",
  LinkExpired: "The link request expired or your sessions were ended meanwhile: start again.",
};

/** Where the browser goes once every session of the user has ended, this one included. */
const SIGNED_OUT = "/console/sign-in";

export function AccountScreen({ userId, providers, outcome }: AccountScreenProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const user = useQuery(userOptions(trpc, userId));
  const linkedName = providers.find((p) => p.id === outcome.linked)?.name;
  const [notice, setNotice] = useState(
    outcome.error
      ? (LINK_ERRORS[outcome.error] ?? "The account could not be linked.")
      : linkedName
        ? `${linkedName} account linked.`
        : "",
  );
  const link = useMutation(
    trpc.account.linkIdentity.mutationOptions({
      onSuccess: ({ redirect_url }) => window.location.assign(redirect_url),
    }),
  );
  const [confirming, setConfirming] = useState<"everywhere" | null>(null);
  const signOut = useMutation(trpc.account.signOutEverywhere.mutationOptions());

  return (
    <HeadedSection title="Your account" description="How you sign in, and where you are signed in.">
      <Loaded query={user} what="your account">
        {(me) => (
          <>
            <p className="mt-4 text-sm">
              Signed in as <strong>{me.display_name ?? me.username}</strong> ({me.username}
              {me.email ? `, ${me.email}` : ""}).
            </p>
            <EmailVerificationBanner email={me.email} verified={me.email_verified_at !== null} />
            <div className="mt-4">
              <Notice
                text={link.error ? `The link could not start: ${messageOf(link.error)}` : notice}
                error={Boolean(outcome.error || link.error)}
              />
            </div>
            <IdentitiesSection
              user={me}
              onNotice={(text) => setNotice(`${text} Unlinking ends every session of yours: sign in again.`)}
              unlinked={() => router.replace(SIGNED_OUT)}
            />
            {providers.length > 0 && (
              <div className="mt-4 flex flex-wrap gap-3">
                {providers.map((provider) => (
                  <button
                    key={provider.id}
                    type="button"
                    className={secondaryButton}
                    disabled={link.isPending}
                    onClick={() => link.mutate({ provider: provider.id })}
                  >
                    Link {provider.name} account
                  </button>
                ))}
              </div>
            )}
            <TwoFactorSection />
            <HeadedSection
              title="Sessions"
              level={2}
              className="mt-10"
              description="Ending every session signs you out here and in every other browser at once. API keys keep working."
            >
              <button type="button" className={`${dangerButton} mt-4`} onClick={() => setConfirming("everywhere")}>
                Sign out everywhere
              </button>
            </HeadedSection>
            <ConfirmDialog
              subject={confirming}
              title={() => "Sign out everywhere?"}
              body={() => "Every console session of yours ends now, this one included."}
              confirmLabel="Sign out everywhere"
              pendingLabel="Signing out…"
              onClose={() => setConfirming(null)}
              run={() => signOut.mutateAsync()}
              onDone={() => router.replace(SIGNED_OUT)}
            />
          </>
        )}
      </Loaded>
    </HeadedSection>
  );
}
