import "server-only";
import { randomBytes } from "node:crypto";
import type { Provider } from "next-auth/providers";
import GitHub from "next-auth/providers/github";
import Google from "next-auth/providers/google";
import { dataLayer } from "@/server/db/data-layer";
import { mapDatabaseError } from "@/server/db/errors";
import { env } from "@/server/env";
import { log } from "@/server/log";

// Console sign-in with external accounts (GitHub, Google, one generic OpenID Connect provider), each
// on when its environment variables are set. A sign-in reaches a user through a linked identity, else
// through a verified email of a user without a system role or org_admin (unless SVC_OAUTH_AUTO_LINK=0),
// else is refused unless SVC_OAUTH_AUTO_CREATE_USERS=1. Linking from the profile:
// src/server/session/identity-linking.ts. See docs/access.md.

/** Auth.js provider id → the provider name stored in user_oauth_identities */
const STORED_NAMES: Record<string, "github" | "google" | "oauth2"> = {
  github: "github",
  google: "google",
  oidc: "oauth2",
};

export const storedProviderName = (authJsId: string) => STORED_NAMES[authJsId];

interface GitHubEmail {
  email: string;
  primary: boolean;
  verified: boolean;
}

/** The primary email of a GitHub account when GitHub has verified it, else none. */
export function verifiedGitHubEmail(emails: unknown): string | null {
  if (!Array.isArray(emails)) return null;
  const primary = (emails as GitHubEmail[]).find(
    (e) => e?.primary === true && e.verified === true && typeof e.email === "string",
  );
  return primary?.email ?? null;
}

/** The providers whose variables are set (the credentials provider is configured by session.ts). */
export function oauthProviders(): Provider[] {
  const e = env();
  const providers: Provider[] = [];
  if (e.AUTH_GITHUB_ID && e.AUTH_GITHUB_SECRET) {
    providers.push(
      GitHub({
        clientId: e.AUTH_GITHUB_ID,
        clientSecret: e.AUTH_GITHUB_SECRET,
        // GitHub's /user shows a public email, verified or not: ask /user/emails which one GitHub
        // has verified, and say so in email_verified like an OpenID provider would.
        userinfo: {
          url: "https://api.github.com/user",
          async request({ tokens }: { tokens: { access_token?: string } }) {
            const headers = {
              Authorization: `Bearer ${tokens.access_token}`,
              "User-Agent": "svc",
              Accept: "application/vnd.github+json",
            };
            const profile = (await (await fetch("https://api.github.com/user", { headers })).json()) as Record<
              string,
              unknown
            >;
            const emails = await fetch("https://api.github.com/user/emails", { headers }).then((r) =>
              r.ok ? r.json() : [],
            );
            const email = verifiedGitHubEmail(emails);
            return { ...profile, email, email_verified: email !== null };
          },
        },
      }),
    );
  }
  if (e.AUTH_GOOGLE_ID && e.AUTH_GOOGLE_SECRET) {
    providers.push(Google({ clientId: e.AUTH_GOOGLE_ID, clientSecret: e.AUTH_GOOGLE_SECRET }));
  }
  if (e.AUTH_OIDC_ISSUER && e.AUTH_OIDC_ID && e.AUTH_OIDC_SECRET) {
    providers.push({
      id: "oidc",
      name: e.AUTH_OIDC_NAME,
      type: "oidc",
      issuer: e.AUTH_OIDC_ISSUER,
      clientId: e.AUTH_OIDC_ID,
      clientSecret: e.AUTH_OIDC_SECRET,
      // Claims from the UserInfo endpoint: OpenID Connect returns the email claims there when an
      // access token is issued, and not every provider repeats them in the ID token.
      idToken: false,
    });
  }
  return providers;
}

/** The enabled OAuth providers' Auth.js ids and names, for the sign-in page's buttons. */
export function enabledOAuthProviders(): { id: string; name: string }[] {
  return oauthProviders()
    .map((provider) => (typeof provider === "function" ? provider() : provider))
    .map(({ id, name }) => ({ id, name }));
}

export interface ExternalSignIn {
  /** Auth.js provider id: github, google or oidc. */
  provider: string;
  providerUserId: string;
  /** The provider's profile (ID token claims, UserInfo, or GitHub's profile with email_verified). */
  profile: Record<string, unknown> | undefined;
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/** A username made of `name` (an email's local part): letters, digits, ".", "_", "-", as usernames are. */
export function usernameBase(name: string): string {
  const base = (name.includes("@") ? name.slice(0, name.lastIndexOf("@")) : name)
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, 200);
  return base || "user";
}

/** A free username from what the provider knows. */
const usernameCandidate = (profile: Record<string, unknown>, email: string): string =>
  usernameBase(text(profile.preferred_username) ?? text(profile.login) ?? email.split("@")[0] ?? "user");

/** A new user for an external identity with a verified email, the identity linked to it; answers its id. */
export async function createUserFor(
  provider: string,
  providerUserId: string,
  email: string,
  profile: Record<string, unknown>,
): Promise<string> {
  const db = dataLayer(`system:oauth:${provider}`);
  const base = usernameCandidate(profile, email);
  const picture = text(profile.picture) ?? text(profile.avatar_url);
  for (let attempt = 0; attempt < 5; attempt++) {
    const username = attempt === 0 ? base : `${base}-${randomBytes(3).toString("hex")}`;
    try {
      const user = await db.$transaction(async (tx) => {
        const created = await tx.user.create({
          data: {
            username,
            email,
            // Only a verified address reaches here (linkExternalSignIn).
            email_verified_at: new Date(),
            display_name: (text(profile.name) ?? username).slice(0, 255),
            avatar_url: picture?.startsWith("https://") ? picture : null,
          },
        });
        await tx.userOauthIdentity.create({
          data: { user_id: created.id, provider, provider_user_id: providerUserId },
        });
        return created;
      });
      log.info("user created by OAuth sign-in", { user_id: user.id, provider });
      return user.id;
    } catch (error) {
      const mapped = mapDatabaseError(error);
      if (mapped?.code === "conflict" && mapped.details.constraint === "users_username_key") continue;
      throw error;
    }
  }
  throw new Error("Could not find a free username for a new OAuth user.");
}

/**
 * The provider vouches for the address (OIDC's `email_verified`, GitHub's verified primary): when it
 * is the user's current email, that email is verified. Another address verifies nothing.
 */
export async function verifyAssertedEmail(
  provider: string,
  userId: string,
  profile: Record<string, unknown> | undefined,
): Promise<void> {
  const email = text(profile?.email)?.toLowerCase();
  if (!email || profile?.email_verified !== true) return;
  await dataLayer(`system:oauth:${provider}`).user.updateMany({
    where: { id: userId, email, email_verified_at: null },
    data: { email_verified_at: new Date() },
  });
}

/**
 * Resolves an external sign-in to one of our users, linking the identity on first use by a
 * verified email. Returns our user id, or null to refuse the sign-in.
 */
export async function linkExternalSignIn(
  sign: ExternalSignIn,
  options: { autoCreate?: boolean } = {},
): Promise<string | null> {
  const provider = storedProviderName(sign.provider);
  if (!provider || !sign.providerUserId) return null;
  const db = dataLayer(`system:oauth:${provider}`, { includeDeleted: true });
  const known = await db.userOauthIdentity.findUnique({
    where: { provider_provider_user_id: { provider, provider_user_id: sign.providerUserId } },
    select: { user: { select: { id: true, is_deleted: true, kind: true } } },
  });
  const profile = sign.profile ?? {};
  if (known) {
    if (known.user.is_deleted || known.user.kind !== "human") return null;
    await verifyAssertedEmail(provider, known.user.id, profile);
    return known.user.id;
  }

  const email = text(profile.email)?.toLowerCase();
  // Only an address the provider has verified may stand for one of our users.
  if (!email || profile.email_verified !== true) {
    log.info("OAuth sign-in refused: no verified email", { provider });
    return null;
  }
  const user = await dataLayer(`system:oauth:${provider}`).user.findFirst({
    where: { email, kind: "human" },
    select: { id: true },
  });
  if (user && !(await mayAutoLink(user.id))) {
    log.info(
      "OAuth sign-in refused: a verified email does not link an account this powerful; link it from the profile",
      { user_id: user.id, provider },
    );
    return null;
  }
  if (user) {
    try {
      await db.userOauthIdentity.create({
        data: { user_id: user.id, provider, provider_user_id: sign.providerUserId },
      });
    } catch (error) {
      // Linked by a concurrent sign-in meanwhile: whichever user that linked it to answers.
      if (mapDatabaseError(error)?.code !== "conflict") throw error;
      return linkExternalSignIn(sign, options);
    }
    log.info("OAuth identity linked by verified email", { user_id: user.id, provider });
    await verifyAssertedEmail(provider, user.id, profile);
    return user.id;
  }
  if (options.autoCreate ?? env().SVC_OAUTH_AUTO_CREATE_USERS === "1") {
    return createUserFor(provider, sign.providerUserId, email, profile);
  }
  log.info("OAuth sign-in refused: no user has this email", { provider });
  return null;
}

/**
 * Whether a verified email may link a new external account to this user on its own: never when
 * SVC_OAUTH_AUTO_LINK=0, nor for a user holding a system role or org_admin anywhere (such users
 * link their accounts from their own profile, while signed in): an email address is not enough to
 * take over a powerful account.
 */
async function mayAutoLink(userId: string): Promise<boolean> {
  if (env().SVC_OAUTH_AUTO_LINK === "0") return false;
  const powerful = await dataLayer("system:oauth").userRole.count({
    where: {
      user_id: userId,
      role: { is_deleted: false },
      OR: [{ org_id: null }, { role: { name: "org_admin", is_built_in: true } }],
    },
  });
  return powerful === 0;
}

/** Our user id for an identity linked by linkExternalSignIn (null: none, or the user is deleted). */
export async function linkedUserId(authJsProvider: string, providerUserId: string): Promise<string | null> {
  const provider = storedProviderName(authJsProvider);
  if (!provider) return null;
  const identity = await dataLayer(`system:oauth:${provider}`).userOauthIdentity.findUnique({
    where: { provider_provider_user_id: { provider, provider_user_id: providerUserId } },
    select: { user: { select: { id: true, is_deleted: true, kind: true } } },
  });
  return identity && !identity.user.is_deleted && identity.user.kind === "human" ? identity.user.id : null;
}
