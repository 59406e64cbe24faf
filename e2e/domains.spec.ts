import { expect, test } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";
import { createOrganization, uniqueName } from "./console-flows";

// Domains in an organization's settings, signed in as the sys_admin: add a domain, read the TXT
// record to publish from its dialog, see it pending, remove it. Verifying one (its record published
// on the run's DNS server) is where the SSO flows begin (e2e/sso.spec.ts).

test.use({ storageState: STORAGE_STATE.admin });

test("add a domain, see its TXT record, remove it", async ({ page }) => {
  const orgId = await createOrganization(page, uniqueName("Domains org"));
  const domain = `acme-${Date.now().toString(36)}.test`;
  await page.goto(`/console/organizations/${orgId}/settings`);
  const section = page.getByRole("region", { name: "Domains" });
  await section.getByRole("button", { name: "Add domain" }).first().click();
  const form = page.getByRole("dialog", { name: "Add domain" });
  await form.getByLabel("Domain").fill(`${domain.toUpperCase()}.`);
  await form.getByRole("button", { name: "Add domain" }).click();

  const record = page.getByRole("dialog", { name: `TXT record for ${domain}` });
  await expect(record.getByLabel("Name")).toHaveValue(`_svc-challenge.${domain}`);
  await expect(record.getByLabel("Value")).toHaveValue(/^svc-domain-verification=[A-Za-z0-9_-]{32}$/);
  await record.getByRole("button", { name: "Done" }).click();

  const row = page.getByRole("row", { name: new RegExp(domain.replace(/\./g, "\\.")) });
  await expect(row).toContainText("pending");
  await row.getByRole("button", { name: `Remove ${domain}` }).click();
  await page
    .getByRole("alertdialog", { name: `Remove the domain ${domain}?` })
    .getByRole("button", { name: "Remove domain" })
    .click();
  await expect(page.getByText(`Domain ${domain} removed.`)).toBeVisible();
  await expect(row).toHaveCount(0);

  // Junk is refused in the form, nothing added.
  await section.getByRole("button", { name: "Add domain" }).first().click();
  await form.getByLabel("Domain").fill("gmail.com");
  await form.getByRole("button", { name: "Add domain" }).click();
  await expect(form).toContainText("public email provider");
});
