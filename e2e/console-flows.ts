import { expect, type Locator, type Page } from "@playwright/test";
import { BUILT_IN_ROLES } from "../src/lib/permissions";

// Console flows several specs go through: a name no earlier run took, the Create API key dialog, a
// key made through it (its raw value read from the dialog that shows it once), an organization, and
// a service account with a key.

const ORG_MEMBER = BUILT_IN_ROLES.find((role) => role.name === "org_member")!;

export const uniqueName = (label: string) => `${label} ${Date.now().toString(36)}`;

export async function openCreateKeyDialog(page: Page) {
  await page.goto("/console/api-keys");
  await page.getByRole("button", { name: "Create API key" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create API key" });
  await expect(dialog).toBeVisible();
  return dialog;
}

/** Creates a key with this one scope in the console; returns the raw key. */
export async function createKeyInConsole(page: Page, name: string, scope: string): Promise<string> {
  const dialog = await openCreateKeyDialog(page);
  await dialog.getByLabel("Name").fill(name);
  await dialog.getByRole("checkbox", { name: scope }).check();
  await dialog.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  const rawKey = await shown.getByLabel("New API key").inputValue();
  await shown.getByRole("button", { name: "I have copied the key" }).click();
  await expect(shown).toBeHidden();
  return rawKey;
}

/** Creates an organization in the console and lands on its page; returns its id. */
export async function createOrganization(page: Page, name: string): Promise<string> {
  await page.goto("/console/organizations");
  await page.getByRole("button", { name: "Create organization" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create organization" });
  await dialog.getByLabel("Name", { exact: true }).fill(name);
  await dialog.getByRole("button", { name: "Create organization" }).click();
  await expect(page).toHaveURL(/\/console\/organizations\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1, name })).toBeVisible();
  return page.url().split("/").at(-1)!;
}

/**
 * In the organization whose page is open, creates a service account with the org_member role, then
 * a key of it through the create dialog (`fill` ticks what else the key has); returns the raw key.
 */
export async function createServiceAccountWithKey(
  page: Page,
  account: { orgName: string; username: string; displayName?: string },
  key: { name: string; fill?: (dialog: Locator) => Promise<void> },
): Promise<string> {
  await page
    .getByRole("navigation", { name: "Organization sections" })
    .getByRole("link", { name: "Service accounts", exact: true })
    .click();
  await page.getByRole("button", { name: "Create service account" }).first().click();
  const create = page.getByRole("dialog", { name: `Create a service account in ${account.orgName}` });
  await create.getByLabel("Username").fill(account.username);
  if (account.displayName) await create.getByLabel("Display name (optional)").fill(account.displayName);
  await create.getByLabel("Org role").selectOption({ label: `org_member — ${ORG_MEMBER.description}` });
  await create.getByRole("button", { name: "Create service account" }).click();
  await expect(create).toBeHidden();

  // Its keys open below the list.
  await page
    .getByRole("button", { name: `Create key for ${account.username}` })
    .first()
    .click();
  const dialog = page.getByRole("dialog", { name: "Create API key" });
  await dialog.getByLabel("Name").fill(key.name);
  await dialog.getByRole("checkbox", { name: "svc:org:read" }).check();
  await key.fill?.(dialog);
  await dialog.getByRole("button", { name: "Create key" }).click();
  const shown = page.getByRole("alertdialog", { name: "Copy your new API key" });
  const rawKey = await shown.getByLabel("New API key").inputValue();
  await shown.getByRole("button", { name: "I have copied the key" }).click();
  return rawKey;
}
