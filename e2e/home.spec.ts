import { expect, test } from "@playwright/test";

test("the home page says what the service is and leads to the console sign-in", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("main")).toContainText(/orchestrator instances/i);
  const signIn = page.getByRole("link", { name: "Sign in to the console" }).first();
  await expect(signIn).toHaveAttribute("href", "/console/sign-in");
});

test("every page carries the security headers", async ({ request }) => {
  const response = await request.get("/");
  const headers = response.headers();
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  // Production never allows eval (only the dev server needs it).
  const scriptSrc = (headers["content-security-policy"] ?? "")
    .split(";")
    .map((directive) => directive.trim())
    .find((directive) => directive.startsWith("script-src "));
  expect(scriptSrc).toBeDefined();
  expect(scriptSrc).not.toContain("'unsafe-eval'");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  expect(headers["x-powered-by"]).toBeUndefined();
});

test("health answers without credentials and readiness sees the database", async ({ request }) => {
  const health = await request.get("/api/health");
  expect(health.status()).toBe(200);
  expect(await health.json()).toEqual({ status: "ok" });
  const ready = await request.get("/api/ready");
  expect(ready.status()).toBe(200);
});
