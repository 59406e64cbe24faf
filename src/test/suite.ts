import { ALL_PERMISSIONS, isDangerous, ORG_PERMISSIONS } from "@/lib/permissions";
import { systemActor } from "@/server/auth/actor";
import { createApiKey } from "@/server/services/api-keys/service";
import { Browserless, startApp, type RunningApp } from "./app";
import { testDatabase } from "./database";
import { createSysAdmin, PASSWORD, seedRoles } from "./fixtures";
import { readContext } from "@/server/db/context";

// The opening most HTTP test files share: their own database with the built-in roles, the
// production build started on it, and the ways a sys_admin calls it (a key, a console session).

/** Every permission a key may hold: dangerous ones never reach a key. */
export const KEY_PERMISSIONS = ALL_PERMISSIONS.filter((p) => !isDangerous(p));

/** This test file's own database with the built-in roles, and the production build serving it. */
export async function appOnOwnDatabase(env: Record<string, string> = {}, options: Parameters<typeof startApp>[2] = {}) {
  const { client, url } = await testDatabase();
  await seedRoles(client);
  const app = await startApp(url, env, options);
  return { client, url, app };
}

/** A key of the user's holding every permission a key may hold. */
export const keyOfEverything = (userId: string, name = "ops") =>
  createApiKey(readContext(systemActor("test")), userId, { name, scopes: KEY_PERMISSIONS, expires_at: null });

/** A console session of the user, signed in with the fixtures' password. */
export async function consoleSession(app: RunningApp, username: string): Promise<Browserless> {
  const session = new Browserless(app.baseUrl);
  if (!(await session.signIn(username, PASSWORD))) throw new Error(`${username} did not sign in to the console`);
  return session;
}

/** appOnOwnDatabase with a sys_admin in it, their key of everything and their console session. */
export async function appWithSysAdmin(env: Record<string, string> = {}) {
  const opened = await appOnOwnDatabase(env);
  const admin = await createSysAdmin(opened.client);
  const key = await keyOfEverything(admin.id);
  return { ...opened, admin, key, session: await consoleSession(opened.app, admin.username) };
}

/** A key of the user's holding every org permission: what an org admin's integration holds. */
export const orgKey = (userId: string, name = "org") =>
  createApiKey(readContext(systemActor("test")), userId, { name, scopes: ORG_PERMISSIONS, expires_at: null });
