import type { Page } from "@playwright/test";
import { E2E_ADMIN } from "../scripts/e2e-env.mjs";

// The accounts the flows sign in with, and where each one's signed-in state is kept (git-ignored)
// once e2e/auth.setup.ts has signed in through the form.

export interface Account {
  username: string;
  password: string;
}

export const ADMIN: Account = E2E_ADMIN;
/** A user with an organization role but no platform role: not a sys_admin. */
export const MEMBER: Account = { username: "e2e-member", password: "e2e-member-password-1" };

export const STORAGE_STATE = {
  admin: "e2e/.auth/admin.json",
  member: "e2e/.auth/member.json",
} as const;

export async function signIn(page: Page, account: Account): Promise<void> {
  await page.goto("/console/sign-in");
  await page.getByLabel("Username or email").fill(account.username);
  await page.getByLabel("Password").fill(account.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}
