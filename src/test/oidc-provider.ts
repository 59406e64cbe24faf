import { generateKeyPairSync, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration } from "oidc-provider";

// A standards-compliant OpenID Provider (the `oidc-provider` package) on 127.0.0.1, for tests of
// the console's "sign in with OpenID Connect": one confidential client for the app, test accounts
// with an email and an email_verified claim, and the package's development login and consent
// pages (any password is accepted; the login names the account by its `sub`). Start it before the
// app — the app needs the issuer in AUTH_OIDC_* — then register the app's callback URL.

interface TestAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface LocalOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** AUTH_OIDC_* variables pointing the app at this provider (for startApp's env). */
  appEnv: Record<string, string>;
  /** Allows the app's callback URL (e.g. `${app.baseUrl}/api/auth/callback/oidc`). Call before signing in. */
  allowRedirectUri(uri: string): void;
  addAccount(account: TestAccount): void;
  stop(): Promise<void>;
}

export interface OidcProviderOptions {
  accounts?: TestAccount[];
  /** The provider's display name in the app (AUTH_OIDC_NAME). */
  name?: string;
  /** A fixed port (e.g. for a Playwright webServer); default: a free one. */
  port?: number;
  /** Callback URLs known up front; more can be added with allowRedirectUri. */
  redirectUris?: string[];
  /** A fixed client secret (when the app is configured by another process); default: random. */
  clientSecret?: string;
}

export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<LocalOidcProvider> {
  const accounts = new Map((options.accounts ?? []).map((a) => [a.sub, a]));
  const clientId = "svc-console";
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  const redirectUris = new Set<string>(options.redirectUris ?? []);
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  const cookieKey = randomBytes(32).toString("hex");

  let handle: ReturnType<Provider["callback"]> | undefined;
  const server = http.createServer((request, response) => {
    if (!handle) {
      response.writeHead(503).end("no redirect URI registered yet");
      return;
    }
    void handle(request, response);
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const build = () => {
    const configuration: Configuration = {
      clients: [
        {
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uris: [...redirectUris],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "preferred_username"] },
      async findAccount(_ctx, sub) {
        const account = accounts.get(sub);
        if (!account) return undefined;
        return {
          accountId: sub,
          claims: () => ({
            sub,
            email: account.email,
            email_verified: account.email_verified,
            name: account.name ?? sub,
            preferred_username: sub,
          }),
        };
      },
      cookies: { keys: [cookieKey] },
      jwks: { keys: [{ ...jwk, kid: "test-key", alg: "RS256", use: "sig" }] as never },
      features: { devInteractions: { enabled: true } },
      ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    };
    const provider = new Provider(issuer, configuration);
    handle = provider.callback();
  };

  if (redirectUris.size > 0) build();

  return {
    issuer,
    clientId,
    clientSecret,
    appEnv: {
      AUTH_OIDC_ISSUER: issuer,
      AUTH_OIDC_ID: clientId,
      AUTH_OIDC_SECRET: clientSecret,
      AUTH_OIDC_NAME: options.name ?? "Test OpenID",
    },
    allowRedirectUri(uri) {
      redirectUris.add(uri);
      build();
    },
    addAccount(account) {
      accounts.set(account.sub, account);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// A browser, reduced to what an OAuth round trip needs: cookies per origin, redirects followed by
// hand, and HTML forms submitted with their hidden fields.

const unescapeHtml = (value: string) =>
  value
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&#x2F;/g, "/")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");

export class CookieBrowser {
  private readonly jars = new Map<string, Map<string, string>>();

  private jar(origin: string) {
    let jar = this.jars.get(origin);
    if (!jar) this.jars.set(origin, (jar = new Map()));
    return jar;
  }

  cookieHeader(url: string): string {
    return [...this.jar(new URL(url).origin)].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  cookieNames(url: string): string[] {
    return [...this.jar(new URL(url).origin).keys()];
  }

  /** One request, no redirect following; remembers the cookies it sets. */
  async request(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookies = this.cookieHeader(url);
    if (cookies) headers.set("cookie", cookies);
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    const jar = this.jar(new URL(url).origin);
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (!pair || at <= 0) continue;
      const name = pair.slice(0, at).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || /^\s*expires=thu, 01 jan 1970/i.test(a));
      if (expired) jar.delete(name);
      else jar.set(name, pair.slice(at + 1));
    }
    return response;
  }

  /** Submits the page's first form: its hidden fields plus `fields`. */
  async submitForm(pageUrl: string, html: string, fields: Record<string, string>): Promise<Response> {
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
    if (!form) throw new Error(`No form on ${pageUrl}: ${html.slice(0, 500)}`);
    const body = new URLSearchParams();
    for (const input of (form[2] ?? "").matchAll(/<input[^>]*>/gi)) {
      const tag = input[0];
      if (!/type="hidden"/i.test(tag)) continue;
      const name = /name="([^"]*)"/i.exec(tag)?.[1];
      if (name) body.set(unescapeHtml(name), unescapeHtml(/value="([^"]*)"/i.exec(tag)?.[1] ?? ""));
    }
    for (const [k, v] of Object.entries(fields)) body.set(k, v);
    return this.request(new URL(unescapeHtml(form[1] ?? ""), pageUrl).href, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: body.toString(),
    });
  }
}

/**
 * Follows a sign-in round trip as a browser would, from `response` (the answer at `url`): redirects
 * followed, each page's form submitted with its hidden fields and what `fill` gives for it, until a
 * redirect lands in the app at a page `landed` accepts. Answers that page's URL.
 */
export async function followRoundTrip(
  browser: CookieBrowser,
  app: string,
  start: { response: Response; url: string },
  fill: (html: string) => Record<string, string>,
  landed: (next: URL) => boolean,
): Promise<{ finalUrl: URL }> {
  let { response, url } = start;
  for (let step = 0; step < 30; step++) {
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin === app && landed(next)) return { finalUrl: next };
      url = next.href;
      response = await browser.request(url);
      continue;
    }
    const html = await response.text();
    if (response.status !== 200 || !/<form/i.test(html))
      throw new Error(`Unexpected ${response.status} at ${url}: ${html.slice(0, 800)}`);
    response = await browser.submitForm(url, html, fill(html));
  }
  throw new Error("Too many steps signing in");
}

/** The local provider's login form names the account by `login`; its consent form needs nothing. */
export const oidcProviderForms =
  (login: string) =>
  (html: string): Record<string, string> =>
    /name="prompt" value="login"/.test(html) ? { login, password: "any-password" } : {};

/**
 * Signs into the app through Auth.js and the local provider as a browser would: the app's
 * sign-in POST, the provider's login and consent forms, the app's callback. Ends at the first
 * redirect back into the app outside /api/auth (the console, or the sign-in page with ?error=).
 */
export async function signInWithOidc(
  browser: CookieBrowser,
  appBaseUrl: string,
  login: string,
  options: { providerId?: string; callbackUrl?: string } = {},
): Promise<{ finalUrl: URL }> {
  const app = new URL(appBaseUrl).origin;
  const csrf = (await (await browser.request(`${app}/api/auth/csrf`)).json()) as { csrfToken: string };
  const response = await browser.request(`${app}/api/auth/signin/${options.providerId ?? "oidc"}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      csrfToken: csrf.csrfToken,
      callbackUrl: `${app}${options.callbackUrl ?? "/console"}`,
    }).toString(),
  });
  return followRoundTrip(
    browser,
    app,
    { response, url: `${app}/api/auth/signin` },
    oidcProviderForms(login),
    (next) => !next.pathname.startsWith("/api/auth/"),
  );
}
