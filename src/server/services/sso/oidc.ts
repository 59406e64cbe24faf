import "server-only";
import { createHmac } from "node:crypto";
import { LRUCache } from "lru-cache";
import * as client from "openid-client";
import { env } from "@/server/env";
import { clientSecretOf, idpUrlProblem, serviceProviderOf, type ConnectionRow } from "./connections";
import { SsoRefusal, type AssertedIdentity } from "./sign-in";

// OpenID Connect through openid-client: discovery from the connection's issuer, the authorization
// code flow with PKCE, state and nonce, and the ID token's issuer, audience, expiry and nonce checked
// by the library. The flow's state and nonce ride in a signed cookie (session/sso-flow.ts); the PKCE
// verifier is derived from them with AUTH_SECRET, so the cookie holds nothing secret.

const REQUEST_TIMEOUT_MS = 10_000;

/** Every request to an IdP goes where a connection may point (https, no internal address), within 10 s. */
const guardedFetch: client.CustomFetch = async (url, options) => {
  const problem = idpUrlProblem(url);
  if (problem) throw new SsoRefusal("connection_unavailable", `the identity provider's URL ${url} ${problem}`);
  return fetch(url, { ...options, redirect: "manual", signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) } as RequestInit);
};

// Discovery answers per connection version, for ten minutes: an IdP's endpoints and keys change rarely,
// and openid-client fetches the keys again when a token names one it does not know.
const configurations = new LRUCache<string, Promise<client.Configuration>>({ max: 500, ttl: 10 * 60_000 });

function configurationOf(connection: ConnectionRow): Promise<client.Configuration> {
  const key = `${connection.id}:${connection.updated_at.getTime()}`;
  let configuration = configurations.get(key);
  if (!configuration) {
    const issuer = new URL(connection.oidc_issuer!);
    // The ID token's signature is checked against the issuer's published keys even though it comes
    // straight from the token endpoint, where the standard lets TLS stand in for it.
    const insecure = issuer.protocol === "http:" && env().SVC_ALLOW_HTTP_LOOPBACK === "1";
    configuration = client.discovery(issuer, connection.oidc_client_id!, clientSecretOf(connection), undefined, {
      [client.customFetch]: guardedFetch,
      execute: [client.enableNonRepudiationChecks, ...(insecure ? [client.allowInsecureRequests] : [])],
    });
    configurations.set(key, configuration);
    configuration.catch(() => configurations.delete(key));
  }
  return configuration.catch((error: unknown) => {
    if (error instanceof SsoRefusal) throw error;
    throw new SsoRefusal("connection_unavailable", `discovery failed: ${(error as Error).message}`);
  });
}

/** What an OIDC round trip carries through the browser: which connection, its state and nonce, and whether it is a test. */
export interface OidcFlow {
  connectionId: string;
  state: string;
  nonce: string;
  test: boolean;
}

function pkceVerifier(flow: Pick<OidcFlow, "state" | "nonce">): string {
  const secret = process.env.AUTH_SECRET;
  if (!secret) throw new Error("AUTH_SECRET is not set");
  return createHmac("sha256", `sso-pkce:${secret}`).update(`${flow.state}.${flow.nonce}`).digest("base64url");
}

/** A new flow for the connection, and where to send the browser to sign in at its IdP. */
export async function oidcSignIn(connection: ConnectionRow, test: boolean): Promise<{ flow: OidcFlow; url: string }> {
  const configuration = await configurationOf(connection);
  const flow: OidcFlow = {
    connectionId: connection.id,
    state: client.randomState(),
    nonce: client.randomNonce(),
    test,
  };
  const url = client.buildAuthorizationUrl(configuration, {
    redirect_uri: serviceProviderOf(connection.id).redirectUri,
    scope: connection.oidc_scopes.join(" "),
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(pkceVerifier(flow)),
    code_challenge_method: "S256",
  });
  return { flow, url: url.href };
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;

/**
 * Completes the flow at the callback: the code exchanged, the ID token checked against the flow's
 * state and nonce. The email comes from the ID token, else from UserInfo; an IdP that says the
 * address is not verified (email_verified false) is refused.
 */
export async function completeOidcSignIn(
  connection: ConnectionRow,
  flow: OidcFlow,
  callbackUrl: URL,
): Promise<AssertedIdentity> {
  const error = callbackUrl.searchParams.get("error");
  if (error) throw new SsoRefusal("identity_provider_refused", `the identity provider answered ${error.slice(0, 100)}`);
  const configuration = await configurationOf(connection);
  // The IdP sends the browser to the redirect URI as registered; this server may sit behind a proxy.
  const current = new URL(serviceProviderOf(connection.id).redirectUri);
  current.search = callbackUrl.search;
  let claims: client.IDToken | undefined;
  let accessToken: string;
  try {
    const tokens = await client.authorizationCodeGrant(configuration, current, {
      pkceCodeVerifier: pkceVerifier(flow),
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    claims = tokens.claims();
    accessToken = tokens.access_token;
  } catch (failure) {
    if (failure instanceof SsoRefusal) throw failure;
    throw new SsoRefusal("invalid_response", `the code exchange or ID token failed: ${(failure as Error).message}`);
  }
  if (!claims) throw new SsoRefusal("invalid_response", "no ID token");
  let profile: Record<string, unknown> = claims;
  if (!text(claims.email)) {
    try {
      profile = { ...(await client.fetchUserInfo(configuration, accessToken, claims.sub)), ...claims };
    } catch (failure) {
      throw new SsoRefusal("invalid_response", `UserInfo failed: ${(failure as Error).message}`);
    }
  }
  // Some providers send the claim as a string.
  if (profile.email_verified === false || profile.email_verified === "false")
    throw new SsoRefusal("invalid_response", "the identity provider says the email is not verified");
  return { subject: claims.sub, email: text(profile.email), name: text(profile.name) };
}
