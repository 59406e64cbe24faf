import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { STORAGE_STATE } from "./accounts";

// The plugins and models screens, signed in as the sys_admin; what they change is then read over
// REST with an API key.

test.use({ storageState: STORAGE_STATE.admin });

const unique = () => Date.now().toString(36);

const SCHEMA = {
  type: "object",
  properties: {
    results: { type: "integer", title: "Results", minimum: 1 },
    strategy: { type: "string", title: "Strategy", enum: ["fast", "deep"] },
  },
  required: ["results"],
  additionalProperties: false,
};

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** An API key of the signed-in admin with the catalog read scopes, made through the console's tRPC endpoint. */
async function catalogKey(page: Page): Promise<string> {
  const response = await page.request.post("/api/trpc/apiKeys.create", {
    headers: { origin: new URL(page.url()).origin },
    data: {
      json: { name: `e2e catalogs ${unique()}`, scopes: ["svc:plugins:read", "svc:models:read"], expires_at: null },
    },
  });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { result: { data: { json: { raw_key: string } } } }).result.data.json.raw_key;
}

const getWithKey = async (request: APIRequestContext, key: string, path: string) => {
  const response = await request.get(path, { headers: { "X-API-KEY": key } });
  expect(response.status()).toBe(200);
  return response.json() as Promise<{ data: Record<string, unknown>[] }>;
};

test.describe("plugins", () => {
  test("register a plugin version, see the form its settings schema makes, then a newer version marked latest", async ({
    page,
  }) => {
    const pid = `com.e2e.search${unique()}`;
    await page.goto("/console/plugins");
    await page.getByRole("button", { name: "Register version" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Register plugin version" });
    await dialog.getByLabel("Plugin ID").fill(pid);
    await dialog.getByLabel("Version", { exact: true }).fill("1.0.0");
    await dialog.getByLabel("Name", { exact: true }).fill("E2E Search");
    await dialog.getByLabel("Tag").fill("search");
    await dialog.getByLabel("Capabilities").fill("retrieval, ranking");
    await dialog.getByRole("checkbox", { name: "Scoped" }).check();
    await dialog.getByLabel("Logo").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: PNG });
    await dialog.getByLabel("Settings schema").fill(JSON.stringify(SCHEMA, null, 2));
    await dialog.getByLabel("Default settings").fill('{ "results": 5, "strategy": "fast" }');

    // The preview renders the schema's fields, filled with the default settings, and the server
    // checks them once typing pauses.
    const preview = dialog.getByRole("region", { name: "Settings form preview" });
    const results = preview.getByLabel("Results");
    await expect(results).toHaveValue("5");
    await expect(preview.getByLabel("Strategy").locator("option:checked")).toHaveText("fast");
    await expect(preview).toContainText("These settings satisfy the schema.");
    await results.fill("0");
    await expect(preview).toContainText("Checking these settings…");
    await expect(preview).toContainText("These settings do not satisfy the schema: 1 problem.");
    await expect(preview.getByText("must be >= 1")).toBeVisible();

    await dialog.getByRole("button", { name: "Register version" }).click();
    await expect(dialog).toBeHidden();
    await expect(
      page.getByRole("status").filter({ hasText: "E2E Search 1.0.0 registered as the latest version." }),
    ).toBeVisible();
    const row = page
      .getByRole("table", { name: "System plugins, latest versions" })
      .getByRole("row", { name: new RegExp(pid.replaceAll(".", "\\.")) });
    await expect(row).toContainText("1.0.0");
    await expect(row).toContainText("retrieval");
    await expect(row).toContainText("Scoped");
    await expect(row.getByRole("switch", { name: "Enable E2E Search 1.0.0" })).toHaveAttribute("aria-checked", "true");

    // The next version, from the plugin's versions: the dialog starts from the latest one.
    await row.getByRole("link", { name: `All versions of ${pid}` }).click();
    await expect(page.getByRole("heading", { level: 1, name: "E2E Search versions" })).toBeVisible();
    await page.getByRole("button", { name: "Register version" }).click();
    const next = page.getByRole("dialog", { name: `Register a version of ${pid}` });
    await expect(next.getByLabel("Plugin ID")).toHaveValue(pid);
    await expect(next.getByRole("region", { name: "Settings form preview" }).getByLabel("Results")).toHaveValue("5");
    await next.getByLabel("Version", { exact: true }).fill("1.1.0");
    await next.getByRole("button", { name: "Register version" }).click();
    await expect(next).toBeHidden();

    const versions = page.getByRole("table", { name: `Versions of ${pid}` });
    await expect(versions.getByRole("row", { name: /^1\.1\.0/ })).toContainText("Latest");
    await expect(versions.getByRole("row", { name: /^1\.0\.0/ })).not.toContainText("Latest");

    // Each version's settings form can be looked at again.
    await versions.getByRole("button", { name: "Settings form of 1.0.0" }).click();
    const settings = page.getByRole("dialog", { name: "Settings form of E2E Search 1.0.0" });
    await expect(settings.getByLabel("Results")).toHaveValue("5");
    await settings.getByRole("button", { name: "Close" }).click();

    // The catalog now shows the new version as the plugin's latest.
    await page.getByRole("link", { name: "All plugins" }).click();
    await expect(row).toContainText("1.1.0");

    // Over REST with an API key, the catalog agrees.
    const key = await catalogKey(page);
    const listed = await getWithKey(page.request, key, `/api/v1/plugins?pid=${pid}`);
    expect(listed.data.map((p) => [p.version, p.is_latest]).sort()).toEqual([
      ["1.0.0", false],
      ["1.1.0", true],
    ]);
    expect(listed.data[0]?.logo_image).toMatch(/^data:image\/png;base64,/);
  });

  test("the settings preview checks a backtracking pattern without freezing the page", async ({ page }) => {
    await page.goto("/console/plugins");
    await page.getByRole("button", { name: "Register version" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Register plugin version" });
    // On JavaScript's own engine this pattern takes about 2^40 steps for the default below.
    await dialog.getByLabel("Settings schema").fill(
      JSON.stringify({
        type: "object",
        properties: { handle: { type: "string", title: "Handle", pattern: "^(a+)+$" } },
      }),
    );
    await dialog.getByLabel("Default settings").fill(JSON.stringify({ handle: `${"a".repeat(40)}!` }));
    const preview = dialog.getByRole("region", { name: "Settings form preview" });
    await expect(preview).toContainText("These settings do not satisfy the schema: 1 problem.");
    await preview.getByLabel("Handle").fill(`${"a".repeat(60)}?`);
    await expect(preview.getByText('must match pattern "^(a+)+$"')).toBeVisible();
    await preview.getByLabel("Handle").fill("aaaa");
    await expect(preview).toContainText("These settings satisfy the schema.");
  });

  test("the settings preview asks the server once typing pauses, and says when it cannot", async ({ page }) => {
    await page.goto("/console/plugins");
    await page.getByRole("button", { name: "Register version" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Register plugin version" });
    await dialog.getByLabel("Settings schema").fill(JSON.stringify(SCHEMA));
    await dialog.getByLabel("Default settings").fill('{ "results": 5 }');
    const preview = dialog.getByRole("region", { name: "Settings form preview" });
    await expect(preview).toContainText("These settings satisfy the schema.");

    // Keys typed faster than the pause make one check, of the last value.
    const checks: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/trpc/plugins.checkSettings")) checks.push(request.postData() ?? "");
    });
    const results = preview.getByLabel("Results");
    // Typed over the selected value: no pause before the first key (as a fill("") would make).
    await results.selectText();
    await results.pressSequentially("-3", { delay: 30 });
    await expect(preview).toContainText("These settings do not satisfy the schema: 1 problem.");
    await expect(preview.getByText("must be >= 1")).toBeVisible();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toContain('"settings":{"results":-3}');

    // With the server out of reach, the preview says so rather than showing the last answer.
    await page.route("**/api/trpc/plugins.checkSettings", (route) => route.abort());
    await results.fill("7");
    await expect(preview).toContainText("These settings could not be checked", { timeout: 15_000 });
    await page.unroute("**/api/trpc/plugins.checkSettings");
    await preview.getByRole("button", { name: "Check again" }).click();
    await expect(preview).toContainText("These settings satisfy the schema.");

    // A schema the server refuses is named as such.
    await dialog
      .getByLabel("Settings schema")
      .fill('{ "type": "object", "properties": { "a": { "pattern": "^(?!x)" } } }');
    await expect(preview).toContainText("The settings schema is not acceptable: settings_schema");
  });

  test("the register dialog shows what to fix next to the field that caused it", async ({ page }) => {
    const pid = `com.e2e.broken${unique()}`;
    await page.goto("/console/plugins");
    await page.getByRole("button", { name: "Register version" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Register plugin version" });

    // The form's own checks.
    await dialog.getByLabel("Plugin ID").fill("Not A Pid");
    await dialog.getByLabel("Settings schema").fill("{ not json");
    await dialog.getByRole("button", { name: "Register version" }).click();
    const pidField = dialog.getByLabel("Plugin ID");
    await expect(pidField).toHaveAttribute("aria-invalid", "true");
    await expect(pidField).toHaveAccessibleDescription(/Plugin ID must be reverse-domain notation/);
    await expect(pidField).toBeFocused();
    await expect(dialog.getByLabel("Version", { exact: true })).toHaveAccessibleDescription(
      /Version must not be empty\./,
    );
    await dialog.getByLabel("Version", { exact: true }).fill("1.0");
    await dialog.getByRole("button", { name: "Register version" }).click();
    await expect(dialog.getByLabel("Version", { exact: true })).toHaveAccessibleDescription(
      /Version must be a semantic version, like 1\.4\.0\./,
    );
    await expect(dialog.getByLabel("Settings schema")).toHaveAccessibleDescription(/Settings schema is not valid JSON/);
    await expect(dialog.getByRole("region", { name: "Settings form preview" })).toContainText(
      "Write valid JSON in Settings schema",
    );

    // A logo that is not a raster image is refused before it is sent.
    await dialog.getByLabel("Logo").setInputFiles({
      name: "logo.svg",
      mimeType: "image/svg+xml",
      buffer: Buffer.from("<svg xmlns='http://www.w3.org/2000/svg'/>"),
    });
    await expect(dialog.getByLabel("Logo")).toHaveAccessibleDescription(/must be a PNG, JPEG, GIF or WebP image/);

    // What only the server knows: this is no JSON Schema, named down to the keyword.
    await pidField.fill(pid);
    await dialog.getByLabel("Version", { exact: true }).fill("1.0.0");
    await dialog.getByLabel("Name", { exact: true }).fill("Broken");
    await dialog
      .getByLabel("Settings schema")
      .fill('{ "type": "object", "properties": { "results": { "type": "nonsense" } } }');
    await dialog.getByRole("button", { name: "Register version" }).click();
    await expect(dialog.getByLabel("Settings schema")).toHaveAccessibleDescription(
      /Settings schema: properties\.results\.type is not a valid JSON Schema/,
    );

    // A version registered twice: the conflict shows next to the version.
    await dialog.getByLabel("Settings schema").fill("{}");
    await dialog.getByRole("button", { name: "Register version" }).click();
    await expect(dialog).toBeHidden();
    await page.getByRole("button", { name: "Register version" }).first().click();
    await dialog.getByLabel("Plugin ID").fill(pid);
    await dialog.getByLabel("Version", { exact: true }).fill("1.0.0");
    await dialog.getByLabel("Name", { exact: true }).fill("Broken again");
    await dialog.getByRole("button", { name: "Register version" }).click();
    const version = dialog.getByLabel("Version", { exact: true });
    await expect(version).toHaveAccessibleDescription(/This version of the plugin is already registered\./);
    await expect(version).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  });
});

test.describe("models", () => {
  test("add a model, edit its input price to 0.00000125, and see it exactly, in the table and over REST", async ({
    page,
  }) => {
    const modelId = `e2e-model-${unique()}`;
    await page.goto("/console/models");
    await page.getByRole("button", { name: "Add model" }).first().click();
    const add = page.getByRole("dialog", { name: "Add model" });
    await add.getByLabel("Provider").fill("e2e");
    await add.getByLabel("Model ID").fill(modelId);
    await add.getByLabel("Display name").fill("E2E Model");
    await add.getByLabel("Aliases").fill(`${modelId}-latest, ${modelId}-alias`);
    await add.getByLabel("Input price").fill("0.5");
    await add.getByLabel("Output price").fill("1.25");
    await add.getByRole("button", { name: "Add model" }).click();
    await expect(add).toBeHidden();

    const row = page.getByRole("table", { name: "Models" }).getByRole("row", { name: new RegExp(modelId) });
    await expect(row).toContainText("0.5 USD");
    await expect(row).toContainText(`${modelId}-alias`);

    await row.getByRole("button", { name: `Edit e2e ${modelId}` }).click();
    const edit = page.getByRole("dialog", { name: `Edit ${modelId}` });
    const price = edit.getByLabel("Input price");
    await expect(price).toHaveValue("0.5");
    await expect(price).toHaveAttribute("inputmode", "decimal");
    await price.fill("1e-8");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(price).toHaveAccessibleDescription(
      /Input price must be a decimal with at most 10 integer and 8 fraction digits\./,
    );
    await price.fill("0.00000125");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await expect(edit).toBeHidden();
    await expect(page.getByRole("status").filter({ hasText: `${modelId} saved.` })).toBeVisible();
    await expect(row.getByText("0.00000125", { exact: true })).toBeVisible();
    await expect(row).toContainText("0.00000125 USDper 1M tokens");

    const key = await catalogKey(page);
    const listed = await getWithKey(page.request, key, "/api/v1/models?provider=e2e&limit=100");
    expect(listed.data.find((m) => m.model_id === modelId)).toMatchObject({
      input_price_per_unit: "0.00000125",
      output_price_per_unit: "1.25",
    });

    // Disabled with its switch, it leaves the enabled models.
    const toggle = row.getByRole("switch", { name: `Enable e2e ${modelId}` });
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await page.getByLabel("Status").selectOption("enabled");
    await expect(page.getByRole("row", { name: new RegExp(modelId) })).toHaveCount(0);
    await page.getByLabel("Status").selectOption("disabled");
    await expect(page.getByRole("row", { name: new RegExp(modelId) })).toHaveCount(1);
  });

  test("a second enabled model of a provider is refused next to the model ID", async ({ page }) => {
    const modelId = `e2e-twin-${unique()}`;
    await page.goto("/console/models");
    for (const attempt of [1, 2]) {
      await page.getByRole("button", { name: "Add model" }).first().click();
      const dialog = page.getByRole("dialog", { name: "Add model" });
      await dialog.getByLabel("Provider").fill("e2e");
      await dialog.getByLabel("Model ID").fill(modelId);
      await dialog.getByRole("button", { name: "Add model" }).click();
      if (attempt === 1) {
        await expect(dialog).toBeHidden();
        continue;
      }
      const field = dialog.getByLabel("Model ID");
      await expect(field).toHaveAttribute("aria-invalid", "true");
      await expect(field).toHaveAccessibleDescription(/An enabled model with this provider and model_id exists\./);
      await dialog.getByRole("button", { name: "Cancel" }).click();
    }
    // The search matches the model ID too; one that matches nothing says so, with a way back.
    await page.getByLabel("Search models").fill(modelId);
    await expect(page.getByRole("row", { name: new RegExp(modelId) })).toHaveCount(1);
    await expect(page.getByRole("table").getByRole("row")).toHaveCount(2);
    await page.getByLabel("Search models").fill("no-such-provider");
    await expect(page.getByText("No models match “no-such-provider”.")).toBeVisible();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(page.getByRole("row", { name: new RegExp(modelId) })).toHaveCount(1);
  });
});
