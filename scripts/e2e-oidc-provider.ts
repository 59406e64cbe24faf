// The local OpenID provider of the Playwright run, on a fixed loopback port (see e2eOidc in
// e2e-env.mjs): the console's "Sign in with E2E OpenID" goes through it, and so do the SSO
// connections the flows make, which register their redirect URIs and accounts at its control port.
import http from "node:http";
import { startOidcProvider } from "../src/test/oidc-provider";
import { e2eOidc } from "./e2e-env.mjs";

const appPort = Number(process.env.E2E_PORT ?? 3100);
const oidc = e2eOidc(appPort);
const provider = await startOidcProvider({
  port: oidc.port,
  clientSecret: oidc.clientSecret,
  name: oidc.name,
  accounts: [oidc.account, oidc.stranger],
  redirectUris: [oidc.callbackUrl],
});

/** Registers what a control request carries; false when it asks for nothing this script knows. */
async function register(request: http.IncomingMessage): Promise<boolean> {
  if (request.method !== "POST") return false;
  let text = "";
  for await (const chunk of request) text += chunk;
  const body = JSON.parse(text) as Record<string, unknown>;
  if (request.url === "/redirect-uris" && typeof body.uri === "string") provider.allowRedirectUri(body.uri);
  else if (request.url === "/accounts" && typeof body.sub === "string" && typeof body.email === "string")
    provider.addAccount({
      sub: body.sub,
      email: body.email,
      email_verified: body.email_verified !== false,
      name: typeof body.name === "string" ? body.name : undefined,
    });
  else return false;
  return true;
}

const control = http.createServer((request, response) => {
  register(request).then(
    (known) => response.writeHead(known ? 204 : 404).end(),
    (error: unknown) => response.writeHead(400).end(String(error)),
  );
});
await new Promise<void>((resolve) => control.listen(Number(new URL(oidc.control).port), "127.0.0.1", resolve));
console.log(`Local OpenID provider at ${provider.issuer}, its control at ${oidc.control}`);

const stop = () => process.exit(0);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
