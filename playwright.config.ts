import { execFileSync } from "node:child_process";
import { defineConfig, devices } from "@playwright/test";
import { e2eDns, e2eMail, e2eOidc, e2eSaml } from "./scripts/e2e-env.mjs";

// Playwright drives Debian's Chromium (browsers cannot be downloaded here): CHROMIUM_PATH, else
// `chromium` on PATH. The app runs as `npm start` would, on a database of its own (see
// scripts/e2e-server.mjs).
const chromium = process.env.CHROMIUM_PATH ?? execFileSync("which", ["chromium"], { encoding: "utf8" }).trim();
const port = Number(process.env.E2E_PORT ?? 3100);
// The server, the setup and the flows name the run's database after this port (scripts/e2e-env.mjs).
process.env.E2E_PORT = String(port);
// A local OpenID provider the app offers "Sign in with …" through (scripts/e2e-oidc-provider.ts).
const oidc = e2eOidc(port);
// A local SMTP receiver the app sends its emails to (scripts/e2e-mail-receiver.ts).
const mail = e2eMail(port);
// A local SAML IdP SSO connections are made against (scripts/e2e-saml-idp.ts).
const saml = e2eSaml(port);
// A local DNS server the app verifies domains against (scripts/e2e-dns-server.ts).
const dns = e2eDns(port);
const PLATFORM_WIDE = /two-factor\.spec\.ts/;

export default defineConfig({
  testDir: "e2e",
  // Two files at a time: much of a flow's time is waiting (for the network to fall quiet, for what a
  // page loads when idle), which the other file's flow fills. The tests within a file run in order.
  fullyParallel: false,
  workers: 2,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [["list"]],
  // A first visit to a page compiles nothing (the app is the production build), but on a 2-core
  // machine also running the tests a page can take seconds to settle: assertions wait up to 15 s.
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    // Seeds the run's data and signs in once per role (e2e/auth.setup.ts); the flows reuse that state.
    { name: "setup", testMatch: /.*\.setup\.ts/ },
    {
      name: "chromium",
      use: { ...devices["Desktop Chrome"] },
      dependencies: ["setup"],
      testIgnore: PLATFORM_WIDE,
    },
    // Flows that change what every other flow meets (the platform's two-factor requirement): after
    // all the others, alone.
    {
      name: "platform-wide",
      use: { ...devices["Desktop Chrome"] },
      dependencies: ["chromium"],
      testMatch: PLATFORM_WIDE,
    },
  ],
  webServer: [
    {
      command: "node node_modules/tsx/dist/cli.mjs scripts/e2e-oidc-provider.ts",
      url: `${oidc.issuer}/.well-known/openid-configuration`,
      env: { E2E_PORT: String(port) },
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: "node node_modules/tsx/dist/cli.mjs scripts/e2e-mail-receiver.ts",
      url: `${mail.inbox}/?to=`,
      env: { E2E_PORT: String(port) },
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: "node node_modules/tsx/dist/cli.mjs scripts/e2e-saml-idp.ts",
      url: `${saml.baseUrl}/metadata`,
      env: { E2E_PORT: String(port) },
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: "node node_modules/tsx/dist/cli.mjs scripts/e2e-dns-server.ts",
      url: `${dns.control}/`,
      env: { E2E_PORT: String(port) },
      reuseExistingServer: false,
      timeout: 30_000,
      stdout: "pipe",
      stderr: "pipe",
    },
    {
      command: "node scripts/e2e-server.mjs",
      url: `http://localhost:${port}/api/health`,
      env: { PORT: String(port), ...oidc.appEnv, ...mail.appEnv, ...dns.appEnv },
      reuseExistingServer: false,
      timeout: 180_000,
      stdout: "pipe",
      stderr: "pipe",
    },
  ],
});
