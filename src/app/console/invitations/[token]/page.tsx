import type { Metadata } from "next";
import type { ReactNode } from "react";
import { systemActor } from "@/server/auth/actor";
import { readContext } from "@/server/db/context";
import { previewInvitation } from "@/server/services/invitations/service";
import { currentSessionActor } from "@/server/session";
import { AcceptInvitation, SignUpWithInvitation } from "./accept-forms";

export const metadata: Metadata = { title: "Invitation — svc" };

// An invitation's link: accept it signed in, or sign in / create an account signed out. Every token
// that cannot be used gets the same page, whatever the reason.

function Card({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md rounded-xl border border-slate-200 bg-white p-8 shadow-sm dark:border-slate-800 dark:bg-slate-900">
        <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
        <div className="mt-4 space-y-4 text-sm">{children}</div>
      </div>
    </main>
  );
}

export default async function InvitationPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await previewInvitation(readContext(systemActor("invitation-page")), token);
  if (!invitation) {
    return (
      <Card title="This invitation cannot be used">
        <p>
          It may have expired, been revoked or accepted already, or the link may be incomplete. Ask the person who
          invited you to send a new invitation.
        </p>
      </Card>
    );
  }
  const actor = await currentSessionActor();
  return (
    <Card title={`Join ${invitation.organization}`}>
      <p>
        This invitation is for <strong>{invitation.email}</strong>.
      </p>
      {actor ? (
        <AcceptInvitation token={token} username={actor.username} />
      ) : (
        <SignUpWithInvitation token={token} email={invitation.email} />
      )}
    </Card>
  );
}
