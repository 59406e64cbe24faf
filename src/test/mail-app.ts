import { afterAll } from "vitest";
import { freePort } from "@/server/free-port";
import { startApp } from "./app";
import { testDatabase } from "./database";
import { seedRoles } from "./fixtures";
import { startMailReceiver } from "./mail-receiver";

/**
 * The built app on a database of its own with the built-in roles, sending its emails to a real SMTP
 * receiver; its links point at the app itself (AUTH_URL), `env` added. The receiver closes with the
 * test file.
 */
export async function startAppWithMail(extraEnv: Record<string, string> = {}) {
  const mail = await startMailReceiver();
  afterAll(() => mail.close());
  const { client, url } = await testDatabase();
  await seedRoles(client);
  const port = await freePort();
  const env = {
    SMTP_URL: mail.url,
    SMTP_FROM: "svc <no-reply@svc.test>",
    AUTH_URL: `http://127.0.0.1:${port}`,
    ...extraEnv,
  };
  const app = await startApp(url, env, { port });
  return { mail, client, url, app };
}
