import "server-only";
import { randomBytes } from "node:crypto";
import type { NextAuthConfig, Session } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { dataLayer } from "@/server/db/data-layer";
import { DomainError } from "@/server/errors";
import { clientAddressOf, requestFactsOf } from "@/server/http/client";
import { countAuthFailure, refuseWhileOverFailureLimit } from "@/server/limits/api-limits";
import { log } from "@/server/log";
import { SIGN_IN_ACTION } from "@/lib/audit-actions";
import { recordAlone } from "@/server/services/audit/record";
import { readContext } from "@/server/db/context";
import { DOMAIN_JOINER, joinByVerifiedDomain } from "@/server/services/domains/auto-join";
import { completeLinking } from "./identity-linking";
import { redeemSsoTicket } from "./sso";
import { linkedUserId, linkExternalSignIn, oauthProviders, verifyAssertedEmail } from "@/server/auth/oauth";
import { hashPassword, verifyPassword } from "@/server/auth/passwords";
import {
  beginSecondFactor,
  endSecondFactor,
  pendingSecondFactor,
  SecondFactorExpired,
  SecondFactorRequired,
} from "@/server/auth/second-factor";
import { signInThrottle, TooManySignInAttempts } from "@/server/auth/sign-in-throttle";
import { hasTwoFactor, spendSecondFactor } from "@/server/services/two-factor/service";

// The console's sign-in (Auth.js): username-or-email and password, checked against the argon2id hash,
// or an OAuth provider, then a second factor where the user has one. A JWT in an HttpOnly cookie
// carries the user id and the user's session epoch at sign-in. This is the configuration; the
// instance made from it, and the session's actor, are in ./index.ts — so that the callbacks here
// never import what imports the instance.

const SESSION_HOURS = 8;
const SIGN_IN_PAGE = "/console/sign-in";

// The hash of a random value nobody knows: verified against for unknown users, so that the time a
// failed sign-in takes does not tell whether the account exists.
const dummyHash = hashPassword(randomBytes(32).toString("hex"));

/** A wrong password is a failed authentication, limited per client address like a bad API key. */
async function asSignInRefusal(check: Promise<void>): Promise<void> {
  try {
    await check;
  } catch (error) {
    if (error instanceof DomainError && error.code === "rate_limited")
      throw new TooManySignInAttempts(Number(error.details.retry_after_seconds));
    throw error;
  }
}

/**
 * A sign-in's outcome in the audit trail: the user it was for when the login named one (nothing of
 * what was typed is kept), the client's address and User-Agent.
 */
async function recordSignIn(request: Request, userId: string | null, outcome: "success" | "denied"): Promise<void> {
  await recordAlone(dataLayer("system:audit"), {
    actor: null,
    userId,
    action: SIGN_IN_ACTION,
    outcome,
    target: { type: "user", id: userId },
    orgId: null,
    request: requestFactsOf(request),
  });
  if (outcome === "success" && userId) await joinOnSignIn(userId);
}

/** Organizations the user joins by their verified email's domain (auto_join); never stops a sign-in. */
async function joinOnSignIn(userId: string): Promise<void> {
  try {
    await joinByVerifiedDomain(readContext(DOMAIN_JOINER), userId);
  } catch (error) {
    log.error("auto-join at sign-in failed", { user_id: userId, error: (error as Error).message });
  }
}

/**
 * The configuration, made when Auth.js first needs it rather than when this module loads: it reads
 * the environment (the secret, the OAuth providers), which a test or the CLI may set after importing
 * the operations that lead here.
 */
export const authConfig = (): NextAuthConfig => ({
  trustHost: true,
  secret: process.env.AUTH_SECRET,
  session: { strategy: "jwt", maxAge: SESSION_HOURS * 3600 },
  // Prefixed, Secure cookies even over plain http: browsers accept them from https origins and from
  // http://localhost (a secure context), so the console needs one of the two. The session cookie is
  // `__Host-` (no Domain, path /); Auth.js's other cookies are `__Secure-`/`__Host-` already.
  useSecureCookies: true,
  cookies: {
    sessionToken: {
      name: "__Host-authjs.session-token",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: true },
    },
  },
  pages: { signIn: SIGN_IN_PAGE, error: SIGN_IN_PAGE },
  providers: [
    Credentials({
      credentials: {
        username: { label: "Username or email" },
        password: { label: "Password", type: "password" },
        code: { label: "Authentication code" },
      },
      async authorize(credentials, request) {
        const client = clientAddressOf(request);
        const code = typeof credentials.code === "string" ? credentials.code.trim() : "";
        if (code) return secondStep(code, client, request);
        const login = typeof credentials.username === "string" ? credentials.username.trim() : "";
        const password = typeof credentials.password === "string" ? credentials.password : "";
        if (!login || !password || login.length > 255 || password.length > 1024) return null;
        await asSignInRefusal(refuseWhileOverFailureLimit(client));
        await signInThrottle.check(login, client);
        const user = await dataLayer("system:auth").user.findFirst({
          // Service accounts never sign in to the console: they are not found here at all.
          where: { kind: "human", ...(login.includes("@") ? { email: login.toLowerCase() } : { username: login }) },
          select: { id: true, username: true, display_name: true, password_hash: true, session_epoch: true },
        });
        // Verify against a fixed hash when the user does not exist, so timing does not tell.
        const ok = await verifyPassword(user?.password_hash ?? (await dummyHash), password);
        if (!user || !user.password_hash || !ok) {
          await recordSignIn(request, user?.id ?? null, "denied");
          await signInThrottle.fail(login, client);
          await asSignInRefusal(countAuthFailure(client));
          return null;
        }
        await signInThrottle.succeed(login, client);
        // No session yet: the sign-in page asks for a code (second-factor.ts); the sign-in is
        // recorded once the code settles it.
        if (await hasTwoFactor(user.id, dataLayer("system:auth"))) {
          await beginSecondFactor(user.id, user.session_epoch);
          throw new SecondFactorRequired();
        }
        await recordSignIn(request, user.id, "success");
        return { id: user.id, name: user.display_name ?? user.username, epoch: user.session_epoch };
      },
    }),
    // The end of a sign-in through an organization's SSO connection (session/sso.ts): a ticket the
    // connection's callback issued in this same request, good once.
    Credentials({
      id: "sso",
      credentials: { ticket: {} },
      async authorize(credentials) {
        const ticket = redeemSsoTicket(credentials.ticket);
        if (!ticket) return null;
        const user = await dataLayer("system:auth").user.findUnique({
          where: { id: ticket.userId },
          select: { username: true, display_name: true, session_epoch: true, kind: true },
        });
        if (!user || user.kind !== "human") return null;
        return {
          id: ticket.userId,
          name: user.display_name ?? user.username,
          epoch: user.session_epoch,
          sso: ticket.connectionId,
        };
      },
    }),
    // GitHub, Google and a generic OpenID Connect provider, each when its variables are set.
    ...oauthProviders(),
  ],
  callbacks: {
    // OAuth sign-ins reach one of our users through a linked identity, or are refused (oauth.ts).
    async signIn({ account, profile }) {
      if (!account || account.type === "credentials") return true;
      // Linking from the signed-in user's own profile, or else an ordinary sign-in.
      const linked = await completeLinking(account.provider, account.providerAccountId);
      if (linked === true) {
        const userId = await linkedUserId(account.provider, account.providerAccountId);
        if (userId) await verifyAssertedEmail(account.provider, userId, profile);
      }
      if (linked !== null) return linked;
      const userId = await linkExternalSignIn({
        provider: account.provider,
        providerUserId: account.providerAccountId,
        profile,
      });
      if (userId === null) return false;
      // The external account is a first factor like a password: a user with two-factor is asked for a code.
      if (await hasTwoFactor(userId, dataLayer("system:auth"))) {
        const epoch = await sessionEpochOf(userId);
        if (epoch === undefined) return false;
        await beginSecondFactor(userId, epoch);
        return SIGN_IN_PAGE;
      }
      await joinOnSignIn(userId);
      return true;
    },
    async jwt({ token, user, account }) {
      // token.sub is always OUR user id: the credentials provider returns it; for an OAuth sign-in
      // the provider's account id is mapped through the identity linked by signIn above.
      if (account && account.type !== "credentials") {
        const userId = await linkedUserId(account.provider, account.providerAccountId);
        if (!userId) return null;
        token.sub = userId;
        token.epoch = await sessionEpochOf(userId);
        token.email = null;
        token.picture = null;
      } else if (user?.id) {
        token.sub = user.id;
        token.epoch = (user as { epoch?: number }).epoch;
        // How the session was signed in: through which SSO connection, if any (enforce reads it).
        const sso = (user as { sso?: string }).sso;
        if (sso) token.sso = sso;
        else delete token.sso;
      }
      return token;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      if (typeof token.epoch === "number") (session as SessionWithEpoch).epoch = token.epoch;
      if (typeof token.sso === "string") (session as SessionWithEpoch).sso = token.sso;
      return session;
    },
  },
  logger: {
    // Auth.js reports a refused sign-in as an error; that is expected traffic, not a fault. Class
    // names are minified in the build, so errors are told apart by their `type`.
    error: (error) => {
      const type = (error as { type?: string }).type ?? error.name;
      if (type !== "CredentialsSignin" && type !== "AccessDenied")
        log.error("auth error", { type, message: error.message });
    },
    warn: () => undefined,
    debug: () => undefined,
  },
});

/** A session as the app reads it: the user's session epoch at sign-in, and the SSO connection it was signed in through. */
export type SessionWithEpoch = Session & { epoch?: number; sso?: string };

/**
 * The second step of a sign-in: a code (TOTP or recovery) for the user who passed the first one.
 * Wrong codes are throttled like passwords, and per user from every address as well, count as
 * failed authentications of the client address, and are recorded as refused sign-ins.
 */
async function secondStep(code: string, client: string, request: Request) {
  const pending = await pendingSecondFactor();
  if (!pending) throw new SecondFactorExpired();
  await asSignInRefusal(refuseWhileOverFailureLimit(client));
  const account = `second-factor:${pending.user}`;
  await signInThrottle.check(account, client, "code");
  if (code.length > 40 || !(await spendSecondFactor(pending.user, code, dataLayer("system:auth")))) {
    await recordSignIn(request, pending.user, "denied");
    await signInThrottle.fail(account, client, "code");
    await asSignInRefusal(countAuthFailure(client));
    return null;
  }
  await signInThrottle.succeed(account, client, "code");
  await endSecondFactor();
  await recordSignIn(request, pending.user, "success");
  const user = await dataLayer("system:auth").user.findUnique({
    where: { id: pending.user },
    select: { username: true, display_name: true, kind: true },
  });
  if (!user || user.kind !== "human") return null;
  return { id: pending.user, name: user.display_name ?? user.username, epoch: pending.epoch };
}

async function sessionEpochOf(userId: string): Promise<number | undefined> {
  const user = await dataLayer("system:auth").user.findUnique({
    where: { id: userId },
    select: { session_epoch: true },
  });
  return user?.session_epoch;
}
