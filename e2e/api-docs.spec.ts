import { expect, test } from "@playwright/test";

// The API reference, as a new integrator reads it: no sign-in, nothing loaded from elsewhere. Its
// first page holds the guide, every operation by tag and the errors; each tag's page holds its
// operations in full.

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
  // The operation's address on the first page (from before the split) leads on to its tag's page.
  await page.goto("/api/docs#createApiKey");
  await expect(page).toHaveURL(/\/api\/docs\/api-keys#createApiKey$/);
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

test("every operation of the OpenAPI document is found from the first page, on a page under 1 MB", async ({
  request,
}) => {
  const document = (await (await request.get("/api/openapi.json")).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
  };
  const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId));
  expect(ids.length).toBeGreaterThan(50);
  const first = await (await request.get("/api/docs")).text();
  expect(first.length).toBeLessThan(1_000_000);
  const pages = new Map<string, string>();
  for (const id of ids) {
    const link = new RegExp(`href="(/api/docs/[a-z0-9-]+)#${id}"`).exec(first);
    expect(link, `a link to ${id} on the first page`).not.toBeNull();
    const path = link?.[1] as string;
    if (!pages.has(path)) pages.set(path, await (await request.get(path)).text());
    expect(pages.get(path), `${id} described on ${path}`).toContain(`<article id="${id}"`);
  }
  for (const [path, html] of pages) expect(html.length, `${path}'s size`).toBeLessThan(1_000_000);
});

test("the table of contents follows the reader", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/api/docs/api-keys");
  const toc = page.getByRole("navigation", { name: "Table of contents" });
  const current = toc.locator('a[aria-current="location"]');
  const last = page.locator("main article").last();
  const lastId = await last.getAttribute("id");
  await last.scrollIntoViewIfNeeded();
  await expect(current).toHaveAttribute("href", `/api/docs/api-keys#${lastId}`);
  await expect(current).toBeInViewport();
  await page.locator("main article").first().scrollIntoViewIfNeeded();
  await expect(current).not.toHaveAttribute("href", `/api/docs/api-keys#${lastId}`);
  await expect(current).toHaveCount(1);
});

test("your first request is sent to the address the reader is on", async ({ page }) => {
  await page.goto("/api/docs#first-request");
  const origin = new URL(page.url()).origin;
  const request = page.locator("[data-origin-example] code");
  await expect(request).toContainText(`export SVC_URL=${origin}\n`);
  await expect(request).not.toContainText("svc.example.com");
});
