import "server-only";
import NextAuth from "next-auth";
import { LRUCache } from "lru-cache";
import type { SessionActor } from "@/server/auth/actor";
import { loadGrants } from "@/server/auth/grants";
import { cacheLifetimeMs, listenForInvalidations, onInvalidation } from "@/server/auth/invalidation";
import { withinSsoEnforcement } from "@/server/auth/sso-enforcement";
import { dataLayer } from "@/server/db/data-layer";
import { mustSetUpTwoFactor } from "@/server/services/two-factor/service";
import { authConfig, type SessionWithEpoch } from "./config";
import { ACCOUNT_PAGE, leaveLinkIntent } from "./identity-linking";

// Console sessions: the Auth.js instance, and who a session's user is. Who the user is and what they
// hold is cached per process and dropped, in every process, when it changes (the invalidation
// channel API keys use): a demoted or deleted user loses access at once, and bumping the epoch (a
// new password, an unlinked identity, "sign out everywhere") ends every session.

const { handlers, auth, signIn, signOut } = NextAuth(authConfig);
export { handlers, signIn, signOut };

interface SessionAccount {
  actor: SessionActor;
  epoch: number;
}

// Who a signed-in user is, per process: read once, then served until the user's grants, account or
// sessions change (announced on the invalidation channel) or the entry ages out.
const ACCOUNT_TTL_MS = 60_000;
const accounts = new LRUCache<string, Promise<SessionAccount | null>>({ max: 10_000, ttl: ACCOUNT_TTL_MS });
onInvalidation((event) => {
  if ("all" in event) accounts.clear();
  else if ("userId" in event) accounts.delete(event.userId);
});

async function loadAccount(userId: string): Promise<SessionAccount | null> {
  const db = dataLayer("system:auth");
  const user = await db.user.findUnique({
    where: { id: userId },
    select: { id: true, username: true, display_name: true, session_epoch: true, kind: true },
  });
  // A service account has no console session, whatever path a sign-in took.
  if (!user || user.kind !== "human") return null;
  const grants = await loadGrants(db, user.id);
  const actor: SessionActor = {
    kind: "session",
    userId: user.id,
    username: user.username,
    displayName: user.display_name,
    grants,
  };
  if (await mustSetUpTwoFactor(db, user.id, grants.isSysAdmin)) actor.mustSetUpTwoFactor = true;
  return { epoch: user.session_epoch, actor };
}

function accountOf(userId: string): Promise<SessionAccount | null> {
  listenForInvalidations();
  // Unheard invalidations would leave a stale account here: read afresh until the listener is back.
  const lifetime = cacheLifetimeMs();
  if (lifetime === 0) return loadAccount(userId);
  let account = accounts.get(userId);
  if (!account) {
    account = loadAccount(userId);
    accounts.set(userId, account, { ttl: Math.min(ACCOUNT_TTL_MS, lifetime) });
    account.catch(() => accounts.delete(userId));
  }
  return account;
}

/** The signed-in user as an actor, or null when there is no valid session (or it was ended). */
export async function currentSessionActor(): Promise<SessionActor | null> {
  const session = (await auth()) as SessionWithEpoch | null;
  const userId = session?.user?.id;
  if (!userId || typeof session?.epoch !== "number") return null;
  const account = await accountOf(userId);
  if (!account || account.epoch !== session.epoch) return null;
  return withinSsoEnforcement(session.sso ? { ...account.actor, ssoConnectionId: session.sso } : account.actor);
}

/** Starts linking `provider` to the signed-in user, from the user's own profile: answers where to send the browser. */
export async function startLinking(actor: SessionActor, provider: string): Promise<{ redirect_url: string }> {
  await leaveLinkIntent(actor, provider);
  return {
    redirect_url: await signIn(provider, {
      redirect: false,
      redirectTo: `${ACCOUNT_PAGE}?linked=${encodeURIComponent(provider)}`,
    }),
  };
}
