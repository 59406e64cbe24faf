import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

// A hostile OpenID Provider for tests: it answers like a provider (discovery, keys, the
// authorization redirect, the token endpoint) but mints ID tokens that break the rules an honest
// one keeps — another issuer or audience, expired, a nonce of another flow, a key it does not
// publish, no signature at all — so that tests can show the app refuses each one.

interface IdTokenTampering {
  /** Another person than the provider's own account. */
  email?: string;
  iss?: string;
  aud?: string;
  exp?: number;
  nonce?: string;
  /** "other-key": signed by a key not in the published JWKS; "none": unsigned (alg none). */
  sign?: "own-key" | "other-key" | "none";
}

export interface RogueOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** How the next ID token is bent; cleared once used. */
  tamper(next: IdTokenTampering): void;
  stop(): Promise<void>;
}

const base64url = (value: Buffer | string) => Buffer.from(value).toString("base64url");

function jwt(header: object, claims: object, key: KeyObject | null): string {
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${unsigned}.${key ? base64url(sign("sha256", Buffer.from(unsigned), key)) : ""}`;
}

export async function startRogueOidcProvider(account: { sub: string; email: string }): Promise<RogueOidcProvider> {
  const own = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const other = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const kid = randomBytes(8).toString("hex");
  const clientId = "svc-rogue";
  const clientSecret = randomBytes(16).toString("base64url");
  const grants = new Map<string, { nonce: string; challenge: string }>();
  let next: IdTokenTampering = {};

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", issuer);
    const json = (status: number, body: object) =>
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration")
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        code_challenge_methods_supported: ["S256"],
      });
    if (url.pathname === "/jwks")
      return json(200, { keys: [{ ...own.publicKey.export({ format: "jwk" }), kid, use: "sig", alg: "RS256" }] });
    if (url.pathname === "/authorize") {
      const code = randomBytes(16).toString("base64url");
      grants.set(code, {
        nonce: url.searchParams.get("nonce") ?? "",
        challenge: url.searchParams.get("code_challenge") ?? "",
      });
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      back.searchParams.set("iss", issuer);
      response.writeHead(303, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token" && request.method === "POST") {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString()));
      request.on("end", () => {
        const form = new URLSearchParams(body);
        const grant = grants.get(form.get("code") ?? "");
        grants.delete(form.get("code") ?? "");
        const verifier = form.get("code_verifier") ?? "";
        // An honest token endpoint in every respect but the ID token it mints.
        if (!grant || createHash("sha256").update(verifier).digest("base64url") !== grant.challenge)
          return json(400, { error: "invalid_grant" });
        const now = Math.floor(Date.now() / 1000);
        const tampering = next;
        next = {};
        const claims = {
          iss: tampering.iss ?? issuer,
          aud: tampering.aud ?? clientId,
          sub: account.sub,
          email: tampering.email ?? account.email,
          email_verified: true,
          iat: now,
          exp: tampering.exp ?? now + 300,
          nonce: tampering.nonce ?? grant.nonce,
        };
        const mode = tampering.sign ?? "own-key";
        const idToken =
          mode === "none"
            ? jwt({ alg: "none", typ: "JWT" }, claims, null)
            : jwt({ alg: "RS256", kid, typ: "JWT" }, claims, mode === "own-key" ? own.privateKey : other.privateKey);
        json(200, {
          access_token: randomBytes(16).toString("base64url"),
          token_type: "Bearer",
          expires_in: 300,
          id_token: idToken,
        });
      });
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    tamper: (tampering) => (next = tampering),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
