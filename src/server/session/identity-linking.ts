import "server-only";
import { cookies } from "next/headers";
import { dataLayer } from "@/server/db/data-layer";
import { mapDatabaseError } from "@/server/db/errors";
import { DomainError } from "@/server/errors";
import { log } from "@/server/log";
import type { SessionActor } from "@/server/auth/actor";
import { enabledOAuthProviders, storedProviderName } from "@/server/auth/oauth";
import { seal, unseal } from "@/server/auth/sealed";

// Linking an external account to the signed-in user, from the user's own profile: the console asks
// for a link (a same-origin POST of the session), which leaves a short-lived intent in a signed,
// HttpOnly cookie and sends the browser to the provider; when the provider sends it back, the
// sign-in callback finds the intent and links the identity to that user (and to no other). An
// intent names the user's session epoch, so one made before a "sign out everywhere" is void.

const INTENT_COOKIE = "__Host-svc.link-intent";
const INTENT_SECONDS = 600;
export const ACCOUNT_PAGE = "/console/account";

interface Intent {
  user: string;
  epoch: number;
  provider: string;
}

const PURPOSE = "link-intent";

/**
 * Leaves the intent to link `provider` to the signed-in user in its cookie; the caller then sends the
 * browser to the provider (startLinking in ./index.ts).
 */
export async function leaveLinkIntent(actor: SessionActor, provider: string): Promise<void> {
  if (!enabledOAuthProviders().some((p) => p.id === provider)) {
    throw new DomainError("validation_failed", "This sign-in provider is not switched on.", {
      errors: [{ path: "provider", message: "is not an enabled provider" }],
    });
  }
  const user = await dataLayer("system:auth").user.findUniqueOrThrow({
    where: { id: actor.userId },
    select: { session_epoch: true },
  });
  const jar = await cookies();
  jar.set(
    INTENT_COOKIE,
    seal(PURPOSE, { user: actor.userId, epoch: user.session_epoch, provider } satisfies Intent, INTENT_SECONDS),
    { httpOnly: true, secure: true, sameSite: "lax", path: "/", maxAge: INTENT_SECONDS },
  );
}

/**
 * The sign-in callback's part: when a link intent for this provider is pending, links the external
 * account to its user and answers true (or where to send the browser when it cannot); null when
 * there is no intent (an ordinary sign-in).
 */
export async function completeLinking(authJsProvider: string, providerUserId: string): Promise<true | string | null> {
  const jar = await cookies();
  const intent = unseal<Intent>(PURPOSE, jar.get(INTENT_COOKIE)?.value);
  if (!intent || intent.provider !== authJsProvider) return null;
  jar.delete(INTENT_COOKIE);
  const provider = storedProviderName(authJsProvider);
  const db = dataLayer(`system:link:${intent.user}`);
  const user = await db.user.findUnique({ where: { id: intent.user }, select: { session_epoch: true, kind: true } });
  if (!provider || !user || user.kind !== "human" || user.session_epoch !== intent.epoch)
    return `${ACCOUNT_PAGE}?error=LinkExpired`;
  const existing = await db.userOauthIdentity.findUnique({
    where: { provider_provider_user_id: { provider, provider_user_id: providerUserId } },
    select: { user_id: true },
  });
  if (existing) return existing.user_id === intent.user ? true : `${ACCOUNT_PAGE}?error=IdentityTaken`;
  try {
    await db.userOauthIdentity.create({ data: { user_id: intent.user, provider, provider_user_id: providerUserId } });
  } catch (error) {
    if (mapDatabaseError(error)?.code === "conflict") return `${ACCOUNT_PAGE}?error=IdentityTaken`;
    throw error;
  }
  log.info("OAuth identity linked from the user's profile", { user_id: intent.user, provider });
  return true;
}
