import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { createKeyInConsole, uniqueName } from "./console-flows";

// The audit log screen, signed in as the sys_admin: a key created in the console is found there,
// with what it changed, and without the raw key.

test.use({ storageState: STORAGE_STATE.admin });

test("create a key in the console, then find its event in the Audit log", async ({ page }) => {
  const name = uniqueName("e2e audited");
  const rawKey = await createKeyInConsole(page, name, "svc:org:read");

  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Audit log" })).toBeVisible();
  const filters = page.getByRole("search", { name: "Filter events" });
  await filters.getByLabel("Action").selectOption({ label: "API key created" });

  const events = page.getByRole("table", { name: "Audit events" });
  const newest = events.getByRole("row").nth(1);
  // Said as what happened, to what (by its name), by whom (by username).
  await expect(newest).toContainText("API key created");
  await expect(newest.getByRole("link", { name })).toBeVisible();
  await expect(newest).toContainText("e2e-admin");
  await expect(newest).toContainText("Success");
  await newest.getByRole("button", { name: /Show changes/ }).click();
  const details = events.getByRole("row").nth(2);
  await expect(details).toContainText(name);
  await expect(details).toContainText("key_hash");
  await expect(details).toContainText("Changed (secret: not recorded)");
  await expect(page.getByText(rawKey)).toHaveCount(0);
});

test("the audit log filters by the actor's username, and says when no event matches", async ({ page }) => {
  await page.goto("/console/audit-log");
  const filters = page.getByRole("search", { name: "Filter events" });
  const events = page.getByRole("table", { name: "Audit events" });
  // Any case: usernames are matched as people type them, once typing pauses.
  await filters.getByLabel("Actor (username)").fill("E2E-Admin");
  // Once the filtered list is in, every event on it is by that user.
  await expect(async () => {
    const rows = (await events.getByRole("row").allTextContents()).filter((text) =>
      /Show (changes|details)/.test(text),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((text) => !text.includes("e2e-admin"))).toEqual([]);
  }).toPass({ timeout: 15_000 });

  await filters.getByLabel("Actor (username)").fill("nobody-by-this-name");
  await expect(page.getByText("No events match these filters.")).toBeVisible();
  await expect(events).toHaveCount(0);
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(filters.getByLabel("Actor (username)")).toHaveValue("");
  await expect(events).toBeVisible();
});
