import "server-only";
import { cookies } from "next/headers";
import { CredentialsSignin } from "next-auth";
import { dataLayer } from "@/server/db/data-layer";
import { seal, unseal } from "./sealed";

// Sign-in of a user with two-factor authentication takes two steps, and no session exists between
// them: the first factor (password, or an external account) leaves a short-lived statement "this
// user passed the first factor" in a signed, HttpOnly cookie, and the second step (a code) turns it
// into a session. The statement names the user's session epoch, so "sign out everywhere" or a new
// password voids one made before.

const COOKIE = "__Host-svc.second-factor";
const PURPOSE = "second-factor";
const PENDING_SECONDS = 300;

export interface PendingSignIn {
  user: string;
  epoch: number;
}

/** Thrown by the first step of a user with two-factor: the sign-in page then asks for a code. */
export class SecondFactorRequired extends CredentialsSignin {
  code = "second_factor";
}

/** Thrown by the second step when the first is missing or too old: sign in again. */
export class SecondFactorExpired extends CredentialsSignin {
  code = "second_factor_expired";
}

// `__Host-` cookies are only accepted, and so only removed, with Secure and path /.
const ATTRIBUTES = { httpOnly: true, secure: true, sameSite: "lax", path: "/" } as const;

/** Records that `userId` passed the first factor. */
export async function beginSecondFactor(userId: string, epoch: number): Promise<void> {
  (await cookies()).set(COOKIE, seal(PURPOSE, { user: userId, epoch } satisfies PendingSignIn, PENDING_SECONDS), {
    ...ATTRIBUTES,
    maxAge: PENDING_SECONDS,
  });
}

/** The sign-in waiting for its second factor, if any and still valid (the user's epoch unchanged). */
export async function pendingSecondFactor(): Promise<PendingSignIn | null> {
  const pending = unseal<PendingSignIn>(PURPOSE, (await cookies()).get(COOKIE)?.value);
  if (!pending) return null;
  const user = await dataLayer("system:auth").user.findUnique({
    where: { id: pending.user },
    select: { session_epoch: true },
  });
  return user?.session_epoch === pending.epoch ? pending : null;
}

export async function endSecondFactor(): Promise<void> {
  (await cookies()).set(COOKIE, "", { ...ATTRIBUTES, maxAge: 0 });
}
