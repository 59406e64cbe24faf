// The local OpenID provider of the Playwright run, on a fixed loopback port (see e2eOidc in
// e2e-env.mjs): the console's "Sign in with E2E OpenID" goes through it.
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
console.log(`Local OpenID provider at ${provider.issuer}`);

const stop = () => process.exit(0);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
