import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { Webhook } from "standardwebhooks";
import { STORAGE_STATE } from "./accounts";

// Webhooks in the console, signed in as the sys_admin: add a platform endpoint pointing at a
// receiver this test runs, copy its secret from the show-once dialog, send a test event, see it
// delivered in the deliveries table, and check the receiver got it signed with that secret.

test.use({ storageState: STORAGE_STATE.admin });

test("add an endpoint, send a test event, see it delivered", async ({ page }) => {
  const received: { headers: Record<string, string>; body: string }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/e2e-${Date.now().toString(36)}`;
  try {
    await page.goto("/console/webhooks");
    await expect(page.getByRole("heading", { level: 1, name: "Webhooks" })).toBeVisible();
    await page.getByRole("button", { name: "Add endpoint" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add webhook endpoint" });
    await dialog.getByLabel("URL").fill(url);
    await dialog.getByRole("checkbox", { name: "member.added" }).check();
    await dialog.getByRole("button", { name: "Add endpoint" }).click();

    const shown = page.getByRole("alertdialog", { name: "Endpoint added" });
    const secret = await shown.getByLabel("Signing secret").inputValue();
    expect(secret).toMatch(/^whsec_/);
    await shown.getByRole("button", { name: "I have copied the secret" }).click();
    await expect(page.getByText(secret)).toHaveCount(0);

    const row = page.getByRole("row", { name: new RegExp(url.replace(/[.?]/g, "\\$&")) });
    await row.getByRole("button", { name: `Send a test event to ${url}` }).click();
    const deliveries = page.getByRole("table", { name: "Deliveries" });
    await expect(deliveries.getByRole("row").nth(1)).toContainText("webhook.test");
    await expect(deliveries.getByRole("row").nth(1)).toContainText("delivered", { timeout: 15_000 });
    await expect(deliveries.getByRole("row").nth(1)).toContainText("204");

    expect(received).toHaveLength(1);
    const event = new Webhook(secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
    expect(event.type).toBe("webhook.test");
  } finally {
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});
