import { expect, test } from "@playwright/test";
import { ADMIN, signIn, STORAGE_STATE } from "./accounts";
import { createOrganization, openCreateKeyDialog, uniqueName } from "./console-flows";

// Signing in and out, who gets in, and the shell every console page shares.

test.describe("signed out", () => {
  test("the console sends a visitor to the sign-in page", async ({ page }) => {
    await page.goto("/console/api-keys");
    await expect(page).toHaveURL(/\/console\/sign-in$/);
    await expect(page.getByRole("heading", { name: "Sign in to the console" })).toBeVisible();
  });

  test("a wrong password is refused with words that do not tell whether the account exists", async ({ page }) => {
    await signIn(page, { username: ADMIN.username, password: "not-the-password" });
    const alert = page.getByRole("main").getByRole("alert");
    await expect(alert).toHaveText("Wrong username or password.");
    await expect(page.getByLabel("Username or email")).toHaveValue(ADMIN.username);
    await expect(page.getByLabel("Password")).toHaveValue("");

    await signIn(page, { username: "nobody-by-this-name", password: "not-the-password" });
    await expect(alert).toHaveText("Wrong username or password.");
    await expect(page).toHaveURL(/\/console\/sign-in$/);
  });

  test("repeated failures make the next attempt wait, and say how long", async ({ page }) => {
    const account = { username: `guess-${Date.now().toString(36)}`, password: "guessing" };
    await page.goto("/console/sign-in");
    const alert = page.getByRole("main").getByRole("alert");
    for (let attempt = 0; attempt < 12; attempt++) {
      await page.getByLabel("Username or email").fill(account.username);
      await page.getByLabel("Password").fill(account.password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
      if (/Too many/.test((await alert.textContent()) ?? "")) break;
    }
    await expect(alert).toHaveText(
      /^Too many failed sign-ins\. Wait \d+ (second|seconds|minute|minutes), then try again\.$/,
    );
  });

  test("the sign-in page carries the security headers", async ({ request }) => {
    const headers = (await request.get("/console/sign-in")).headers();
    expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(headers["content-security-policy"]).toContain("default-src 'self'");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  });
});

test.describe("as a user who is not a sys_admin", () => {
  test.use({ storageState: STORAGE_STATE.member });

  test("the console says there is no access, and the API agrees", async ({ page }) => {
    await page.goto("/console/api-keys");
    await expect(page.getByRole("heading", { name: "No access to the console" })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Console" })).toHaveCount(0);
    const input = encodeURIComponent(JSON.stringify({ json: {} }));
    const response = await page.request.get(`/api/trpc/apiKeys.list?input=${input}`);
    expect(response.status()).toBe(403);

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/console\/sign-in$/);
  });
});

test.describe("as the sys_admin", () => {
  test.use({ storageState: STORAGE_STATE.admin });

  test("the session lives in a prefixed, HttpOnly, Secure cookie", async ({ context, page }) => {
    await page.goto("/console/api-keys");
    const session = (await context.cookies()).find((c) => c.name.endsWith("authjs.session-token"));
    expect(session).toMatchObject({ name: "__Host-authjs.session-token", httpOnly: true, secure: true, path: "/" });
  });

  test("the shell shows who is signed in, navigates by keyboard, and marks the current section", async ({ page }) => {
    const response = await page.goto("/console/api-keys");
    expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(response?.headers()["x-content-type-options"]).toBe("nosniff");
    await expect(page.getByRole("banner")).toContainText(`Signed in as Administrator (${ADMIN.username})`);

    const nav = page.getByRole("navigation", { name: "Console" });
    await expect(nav.getByRole("link", { name: "API keys" })).toHaveAttribute("aria-current", "page");
    for (const section of [
      "Organizations",
      "Users",
      "Roles",
      "Plugins",
      "Models",
      "OAuth clients",
      "Platform settings",
    ]) {
      await expect(nav.getByRole("link", { name: section })).toBeVisible();
    }

    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
    await nav.getByRole("link", { name: "Organizations" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("heading", { level: 1, name: "Organizations" })).toBeVisible();
    await expect(nav.getByRole("link", { name: "Organizations" })).toHaveAttribute("aria-current", "page");
  });

  test("a console page runs only scripts that carry its own nonce", async ({ page }) => {
    const scripts: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/i.test(message.text())) scripts.push(message.text());
    });
    const response = await page.goto("/console/api-keys");
    const scriptSrc =
      (response?.headers()["content-security-policy"] ?? "")
        .split(";")
        .find((d) => d.trim().startsWith("script-src")) ?? "";
    const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
    expect(nonce).toBeTruthy();
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    // Every script the server sent carries the nonce, the page works, and the browser blocked nothing.
    const tags = ((await response?.text()) ?? "").match(/<script\b[^>]*>/g) ?? [];
    expect(tags.length).toBeGreaterThan(0);
    for (const tag of tags) expect(tag).toContain(`nonce="${nonce}"`);
    await expect(page.getByRole("heading", { level: 1, name: "API keys" })).toBeVisible();
    // A second load gets a fresh nonce.
    const again = (await page.reload())?.headers()["content-security-policy"] ?? "";
    expect(again).not.toContain(`'nonce-${nonce}'`);
    expect(scripts).toEqual([]);
  });

  test("the console's forms run within its policy, eval included", async ({ page }) => {
    // A refused eval that a script catches logs nothing, so listen for the violations themselves.
    const violations: string[] = [];
    await page.exposeFunction("reportViolation", (v: string) => violations.push(v));
    await page.addInitScript(() => {
      document.addEventListener("securitypolicyviolation", (e) =>
        (window as unknown as { reportViolation: (v: string) => void }).reportViolation(
          `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`,
        ),
      );
    });
    const dialog = await openCreateKeyDialog(page);
    await expect(dialog.getByLabel("Name")).toBeVisible();
    await createOrganization(page, uniqueName("Policy Org"));
    await expect(page.getByRole("textbox", { name: "Display name" })).toBeVisible();
    expect(violations).toEqual([]);
  });

  test("signing out ends the session", async ({ page }) => {
    await page.goto("/console/api-keys");
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/console\/sign-in$/);
    await page.goto("/console/api-keys");
    await expect(page).toHaveURL(/\/console\/sign-in$/);
  });
});
