// The SAML 2.0 identity provider of the Playwright run, on a fixed loopback port (see e2eSaml in
// e2e-env.mjs): the flows paste its metadata into an SSO connection and sign in at its login page.
import { startSamlIdp } from "../src/test/saml-idp";
import { e2eSaml } from "./e2e-env.mjs";

const saml = e2eSaml(Number(process.env.E2E_PORT ?? 3100));
const idp = await startSamlIdp({ port: saml.port });
console.log(`Local SAML IdP at ${idp.baseUrl}, its metadata at ${idp.baseUrl}/metadata`);

const stop = () => process.exit(0);
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
