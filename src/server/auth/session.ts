import "server-only";
import { randomBytes } from "node:crypto";
import NextAuth, { type Session } from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { dataLayer } from "@/server/db/data-layer";
import { log } from "@/server/log";
import type { SessionActor } from "./actor";
import { LRUCache } from "lru-cache";
import { loadGrants } from "./grants";
import { ensureListening, onInvalidation } from "./invalidation";
import { completeLinking } from "./identity-linking";
import { linkedUserId, linkExternalSignIn, oauthProviders } from "./oauth";
import { hashPassword, verifyPassword } from "./passwords";
import { signInThrottle } from "./sign-in-throttle";

// Console sessions (Auth.js): username-or-email and password, checked against the argon2id hash;
// a JWT in an HttpOnly cookie carries the user id and the user's session epoch at sign-in. Who the
// user is and what they hold is cached per process and dropped, in every process, when it changes
// (the invalidation channel API keys use): a demoted or deleted user loses access at once, and
// bumping the epoch (a new password, an unlinked identity, "sign out everywhere") ends every session.

const SESSION_HOURS = 8;

// The hash of a random value nobody knows: verified against for unknown users, so that the time a
// failed sign-in takes does not tell whether the account exists.
const dummyHash = hashPassword(randomBytes(32).toString("hex"));

export const { handlers, auth, signIn, signOut } = NextAuth({
  trustHost: true,
  secret: process.env.AUTH_SECRET,
  session: { strategy: "jwt", maxAge: SESSION_HOURS * 3600 },
  // Prefixed, Secure cookies even over plain http: browsers accept them from https origins and from
  // http://localhost (a secure context), so the console needs one of the two. The session cookie is
  // `__Host-` (no Domain, path /); Auth.js's other cookies are `__Secure-`/`__Host-` already.
  useSecureCookies: true,
  cookies: {
    sessionToken: { name: "__Host-authjs.session-token", options: { httpOnly: true, sameSite: "lax", path: "/", secure: true } },
  },
  pages: { signIn: "/console/sign-in", error: "/console/sign-in" },
  providers: [
    Credentials({
      credentials: { username: { label: "Username or email" }, password: { label: "Password", type: "password" } },
      async authorize(credentials, request) {
        const login = typeof credentials.username === "string" ? credentials.username.trim() : "";
        const password = typeof credentials.password === "string" ? credentials.password : "";
        if (!login || !password || login.length > 255 || password.length > 1024) return null;
        const client = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "local";
        signInThrottle.check(login, client);
        const user = await dataLayer("system:auth").user.findFirst({
          where: login.includes("@") ? { email: login.toLowerCase() } : { username: login },
          select: { id: true, username: true, display_name: true, password_hash: true, session_epoch: true },
        });
        // Verify against a fixed hash when the user does not exist, so timing does not tell.
        const ok = await verifyPassword(user?.password_hash ?? (await dummyHash), password);
        if (!user || !user.password_hash || !ok) {
          signInThrottle.fail(login, client);
          return null;
        }
        signInThrottle.succeed(login);
        return { id: user.id, name: user.display_name ?? user.username, epoch: user.session_epoch };
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
      if (linked !== null) return linked;
      return (await linkExternalSignIn({ provider: account.provider, providerUserId: account.providerAccountId, profile })) !== null;
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
      }
      return token;
    },
    session({ session, token }) {
      if (token.sub) session.user.id = token.sub;
      if (typeof token.epoch === "number") (session as SessionWithEpoch).epoch = token.epoch;
      return session;
    },
  },
  logger: {
    // Auth.js reports a refused sign-in as an error; that is expected traffic, not a fault. Class
    // names are minified in the build, so errors are told apart by their `type`.
    error: (error) => {
      const type = (error as { type?: string }).type ?? error.name;
      if (type !== "CredentialsSignin" && type !== "AccessDenied") log.error("auth error", { type, message: error.message });
    },
    warn: () => undefined,
    debug: () => undefined,
  },
});

type SessionWithEpoch = Session & { epoch?: number };

async function sessionEpochOf(userId: string): Promise<number | undefined> {
  const user = await dataLayer("system:auth").user.findUnique({ where: { id: userId }, select: { session_epoch: true } });
  return user?.session_epoch;
}

interface SessionAccount {
  actor: SessionActor;
  epoch: number;
}

// Who a signed-in user is, per process: read once, then served until the user's grants, account or
// sessions change (announced on the invalidation channel) or the entry ages out.
const accounts = new LRUCache<string, Promise<SessionAccount | null>>({ max: 10_000, ttl: 60_000 });
onInvalidation((event) => {
  if ("all" in event) accounts.clear();
  else if ("userId" in event) accounts.delete(event.userId);
});

async function loadAccount(userId: string): Promise<SessionAccount | null> {
  const db = dataLayer("system:auth");
  const user = await db.user.findUnique({ where: { id: userId }, select: { id: true, username: true, display_name: true, session_epoch: true } });
  if (!user) return null;
  const grants = await loadGrants(db, user.id);
  return { epoch: user.session_epoch, actor: { kind: "session", userId: user.id, username: user.username, displayName: user.display_name, grants } };
}

function accountOf(userId: string): Promise<SessionAccount | null> {
  ensureListening();
  let account = accounts.get(userId);
  if (!account) {
    account = loadAccount(userId);
    accounts.set(userId, account);
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
  return account && account.epoch === session.epoch ? account.actor : null;
}
