import { expect, test } from "@playwright/test";
import { generateSync } from "otplib";
import { e2eDatabase } from "../scripts/e2e-env.mjs";
import { putPlatformSettingInput } from "../src/lib/schemas/settings";
import { REQUIRE_MFA_SETTING } from "../src/lib/schemas/two-factor";
import { createUserInput } from "../src/lib/schemas/users";
import { systemActor } from "../src/server/auth/actor";
import { baseClient } from "../src/server/db/client";
import { grantRole } from "../src/server/services/roles/grants";
import { listRoles } from "../src/server/services/roles/service";
import { putPlatformSetting } from "../src/server/services/settings/service";
import { createUser } from "../src/server/services/users/service";
import { signIn } from "./accounts";
import { readContext } from "../src/server/db/context";

// Two-factor authentication set up in the console (Your account), then a sign-in that asks for a
// code, computed here from the setup key the page showed. A sys_admin of its own, so the shared
// admin's sign-in stays password-only for the other flows.

const system = systemActor("e2e");
const stamp = Date.now().toString(36);
const account = { username: `two-factor-${stamp}`, password: "two-factor-password-1" };
const held = { username: `held-${stamp}`, password: "held-password-1" };

async function createSysAdmin(user: { username: string; password: string }) {
  const created = await createUser(readContext(system), createUserInput.parse(user));
  const sysAdmin = (await listRoles(readContext(system), { q: "sys_admin", scope: "system", limit: 10 })).data.find(
    (r) => r.name === "sys_admin",
  );
  if (!sysAdmin) throw new Error("The seed's sys_admin role is missing.");
  await grantRole(readContext(system), created.id, { role_id: sysAdmin.id, org_id: null });
}

const requireTwoFactor = (value: boolean) =>
  putPlatformSetting(
    readContext(system),
    REQUIRE_MFA_SETTING,
    putPlatformSettingInput.parse({ value, value_type: "boolean", category: "policy" }),
  );

test.beforeAll(async () => {
  process.env.DATABASE_URL = e2eDatabase().url;
  await createSysAdmin(account);
  await createSysAdmin(held);
});

test.afterAll(async () => {
  await baseClient().$disconnect();
});

/** The code of the current 30-second step, or of the next one (a code is accepted once). */
const codeOf = (secret: string, stepsAhead = 0) =>
  generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });

test("set up two-factor in the console, sign out, sign in with a code", async ({ page }) => {
  await signIn(page, account);
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await page.getByRole("link", { name: "Your account" }).click();

  const section = page.getByRole("region", { name: "Two-factor authentication" });
  await section.getByRole("button", { name: "Set up two-factor authentication" }).click();
  await expect(section.getByRole("img", { name: "QR code of the setup key" })).toBeVisible();
  const secret = await section.getByLabel("Setup key").inputValue();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await section.getByLabel("Authentication code").fill(codeOf(secret));
  await section.getByRole("button", { name: "Verify" }).click();

  const codes = page.getByRole("alertdialog", { name: "Save your recovery codes" });
  await expect(codes.getByRole("list", { name: "Recovery codes" }).getByRole("listitem")).toHaveCount(10);
  await codes.getByRole("button", { name: "I have saved these codes" }).click();
  await expect(section).toContainText("Two-factor authentication is on. 10 of 10 recovery codes left.");

  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  await signIn(page, account);
  // The password alone opens nothing: the page asks for the code.
  const code = page.getByLabel("Authentication code");
  await expect(code).toBeVisible();
  await page.goto("/console/api-keys");
  await expect(page).toHaveURL(/\/console\/sign-in$/);
  // The setup's code is spent: the next step's is the first one that counts.
  await code.fill(codeOf(secret, 1));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
  await expect(page.getByRole("banner")).toContainText(account.username);
});

test("a sys_admin without two-factor is sent to set it up when the platform requires it", async ({ page }) => {
  await requireTwoFactor(true);
  try {
    await signIn(page, held);
    await expect(page).toHaveURL(/\/console\/two-factor-setup$/);
    await expect(page.getByRole("heading", { level: 1, name: "Two-factor authentication required" })).toBeVisible();
    // Nothing else opens until it is set up.
    await page.goto("/console/users");
    await expect(page).toHaveURL(/\/console\/two-factor-setup$/);

    await page.getByRole("button", { name: "Set up two-factor authentication" }).click();
    const secret = await page.getByLabel("Setup key").inputValue();
    await page.getByLabel("Authentication code").fill(codeOf(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page
      .getByRole("alertdialog", { name: "Save your recovery codes" })
      .getByRole("button", { name: "I have saved these codes" })
      .click();
    await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible();
    await page.goto("/console/users");
    await expect(page.getByRole("heading", { level: 1, name: "Users" })).toBeVisible();
  } finally {
    await requireTwoFactor(false);
  }
});
