import { expect, test } from "@playwright/test";

// The API reference, as a new integrator reads it: no sign-in, nothing loaded from elsewhere.

test("the API reference links to the OpenAPI document and shows the typed client", async ({ page }) => {
  const response = await page.goto("/api/docs");
  expect(response?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("svc control plane API");
  await expect(page.getByRole("main").getByRole("link", { name: "/api/openapi.json" }).first()).toHaveAttribute(
    "href",
    "/api/openapi.json",
  );

  const typedClient = page.locator("section", { has: page.locator("#typed-client") });
  await expect(typedClient).toContainText('npx openapi-typescript "$SVC_URL/api/openapi.json" -o schema.d.ts');
  await expect(typedClient).toContainText("createClient<paths>");
  await expect(typedClient).toContainText('svc.GET("/api/v1/organizations"');
});

test("an operation says who may call it and links each error to the catalog's entry", async ({ page }) => {
  await page.goto("/api/docs#createApiKey");
  const operation = page.locator("article#createApiKey");
  await expect(operation).toContainText("Requires a sys_admin holding svc:system:api_keys:write.");
  await expect(operation.getByRole("heading", { name: "Errors" })).toBeVisible();
  await operation.getByRole("link", { name: "scope_not_held", exact: true }).click();
  await expect(page).toHaveURL(/#error-scope_not_held$/);
  const row = page.locator("tr#error-scope_not_held");
  await expect(row).toContainText("403");
  await expect(row).toContainText("scopes");

  // The catalog's headers: a rate-limited or unavailable answer says when to retry.
  await expect(page.locator("tr#error-rate_limited")).toContainText("Retry-After");
  await expect(page.locator("tr#error-method_not_allowed")).toContainText("Allow");
});

test("the reference loads nothing from another origin", async ({ page }) => {
  const origins = new Set<string>();
  page.on("request", (request) => {
    origins.add(new URL(request.url()).origin);
  });
  await page.goto("/api/docs");
  await page.waitForLoadState("networkidle");
  expect([...origins]).toEqual([new URL(page.url()).origin]);
});

test("the OpenAPI document is served as JSON", async ({ request }) => {
  const response = await request.get("/api/openapi.json");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toContain("application/json");
  const document = (await response.json()) as {
    openapi: string;
    components: { securitySchemes: Record<string, { name: string }> };
  };
  expect(document.openapi).toBe("3.1.0");
  expect(document.components.securitySchemes.session?.name).toBe("__Host-authjs.session-token");
});
