// What the Playwright run's server (scripts/e2e-server.mjs) and its setup (e2e/auth.setup.ts) share:
// the database of the run, and the first sys_admin the server seeds.

/**
 * The PostgreSQL server tests may create databases on, and the e2e run's own database there, named
 * after the run's port so that runs on other ports of one machine do not share it.
 */
export function e2eDatabase() {
  const server = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = process.env.E2E_DATABASE ?? `svc_e2e_${process.env.E2E_PORT ?? 3100}`;
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { server, name, url: url.toString() };
}

export const E2E_ADMIN = {
  username: process.env.E2E_ADMIN_USERNAME ?? "e2e-admin",
  password: process.env.E2E_ADMIN_PASSWORD ?? "e2e-admin-password-1",
};

/**
 * The local OpenID provider of the Playwright run (scripts/e2e-oidc-provider.ts, started by
 * playwright.config.ts before the app), the AUTH_* variables that point the app at it, and its
 * test accounts: one whose verified email a seeded user has, one whose email no user has. Flows
 * register more at `control` (`POST /redirect-uris {uri}`, `POST /accounts {sub, email, …}`): an
 * SSO connection's redirect URI is known only once the connection exists.
 */
export function e2eOidc(appPort) {
  const port = Number(process.env.E2E_OIDC_PORT ?? appPort + 1000);
  const issuer = `http://127.0.0.1:${port}`;
  const name = "E2E OpenID";
  const clientId = "svc-console";
  const clientSecret = "e2e-oidc-client-secret";
  return {
    port,
    issuer,
    name,
    clientId,
    clientSecret,
    control: `http://127.0.0.1:${port + 1}`,
    callbackUrl: `http://localhost:${appPort}/api/auth/callback/oidc`,
    appEnv: {
      AUTH_OIDC_ISSUER: issuer,
      AUTH_OIDC_ID: clientId,
      AUTH_OIDC_SECRET: clientSecret,
      AUTH_OIDC_NAME: name,
      AUTH_URL: `http://localhost:${appPort}`,
    },
    account: { sub: "e2e-oidc-admin", email: "oidc.admin@e2e.test", email_verified: true, name: "OIDC Admin" },
    stranger: { sub: "e2e-oidc-stranger", email: "stranger@e2e.test", email_verified: true, name: "Stranger" },
  };
}

/**
 * The SMTP receiver of the Playwright run (scripts/e2e-mail-receiver.ts): the app sends its emails
 * there, and the flows read them over HTTP from `inbox` (`GET /?to=<address>`: that address's
 * messages, oldest first, as JSON).
 */
export function e2eMail(appPort) {
  const port = Number(process.env.E2E_SMTP_PORT ?? appPort + 1025);
  return {
    port,
    inbox: `http://127.0.0.1:${port + 1}`,
    appEnv: { SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: "svc e2e <no-reply@svc.e2e.test>" },
  };
}

/**
 * The SAML 2.0 identity provider of the Playwright run (scripts/e2e-saml-idp.ts, src/test/saml-idp.ts):
 * its metadata at `${baseUrl}/metadata`; its login page asks for an email and posts the signed
 * answer to the ACS the request names, so any SP may use it without registering.
 */
export function e2eSaml(appPort) {
  const port = Number(process.env.E2E_SAML_PORT ?? appPort + 1050);
  return { port, baseUrl: `http://127.0.0.1:${port}` };
}

/**
 * The DNS server of the Playwright run (scripts/e2e-dns-server.ts): the app verifies domains
 * against it (UDP on `port`), and the flows publish TXT records on it over HTTP at `control`
 * (`PUT /txt/<name>` with the values as a JSON list).
 */
export function e2eDns(appPort) {
  const port = Number(process.env.E2E_DNS_PORT ?? appPort + 1075);
  return {
    port,
    control: `http://127.0.0.1:${port + 1}`,
    appEnv: { SVC_DNS_SERVERS: `127.0.0.1:${port}` },
  };
}
