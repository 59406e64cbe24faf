import { expect, test, type Locator, type Page } from "@playwright/test";
import { e2eDatabase } from "../scripts/e2e-env.mjs";
import { MEMBER, STORAGE_STATE } from "./accounts";
import { createOrganization } from "./console-flows";

// Organizations and everything in them, from the console, signed in as the sys_admin (state kept
// by e2e/auth.setup.ts). Data a flow only reads is seeded into the run's database through the
// domain services, as the app itself would write it.

test.use({ storageState: STORAGE_STATE.admin });

// The services reach the run's database through DATABASE_URL, read when first used.
process.env.DATABASE_URL = e2eDatabase().url;

const suffix = () => Date.now().toString(36);

async function services() {
  const [{ systemActor }, { dataLayer }, { readContext }, organizations, orchestrators, conversations] =
    await Promise.all([
      import("../src/server/auth/actor"),
      import("../src/server/db/data-layer"),
      import("../src/server/db/context"),
      import("../src/server/services/organizations/service"),
      import("../src/server/services/orchestrators/service"),
      import("../src/server/services/conversations/service"),
    ]);
  return {
    ctx: readContext(systemActor("e2e")),
    db: dataLayer("system:e2e"),
    ...organizations,
    ...orchestrators,
    ...conversations,
  };
}

test.afterAll(async () => {
  const { baseClient } = await import("../src/server/db/client");
  await baseClient().$disconnect();
});

/** Profile, Members, Invitations, Single sign-on, Directory sync, Service accounts, Settings, LLM configs, Orchestrators, Central points, Conversations, Webhooks, Activity. */
const ORG_SECTION_COUNT = 13;

const sections = (page: Page) => page.getByRole("navigation", { name: "Organization sections" });
const openSection = (page: Page, name: string) => sections(page).getByRole("link", { name, exact: true }).click();
const rowOf = (table: Locator, text: string | RegExp) =>
  table.getByRole("row", {
    name: typeof text === "string" ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : text,
  });

test("an organization from creation to a central point: settings tiers, LLM config, orchestrator, tier and refusals", async ({
  page,
}) => {
  const id = suffix();
  const orgName = `E2E Tenancy ${id}`;
  const platformKey = `e2e.p_${id}`;

  // A platform setting (tier 2) organizations may override.
  await page.goto("/console/settings");
  await expect(page.getByRole("heading", { level: 1, name: "Platform settings" })).toBeVisible();
  await expect(rowOf(page.getByRole("table", { name: "Platform settings" }), "tier.free")).toContainText(
    "platform only",
  );
  await page.getByRole("button", { name: "Add platform setting" }).first().click();
  const platformDialog = page.getByRole("dialog", { name: "Add platform setting" });
  await platformDialog.getByLabel("Key").fill(platformKey);
  await platformDialog.getByLabel("Value type").selectOption("integer");
  await platformDialog.getByLabel("Value", { exact: true }).fill("3");
  await platformDialog.getByLabel("Organizations may override").check();
  await platformDialog.getByRole("button", { name: "Save platform setting" }).click();
  await expect(platformDialog).toBeHidden();
  await expect(rowOf(page.getByRole("table", { name: "Platform settings" }), platformKey)).toContainText("integer");

  await createOrganization(page, orgName);
  await expect(sections(page).getByRole("link", { name: "Profile" })).toHaveAttribute("aria-current", "page");
  await expect(page.getByRole("main")).toContainText("free");

  // Settings: an organization setting (tier 3), then the effective view with each key's source.
  await openSection(page, "Settings");
  await expect(page.getByText("No organization settings")).toBeVisible();
  await page.getByRole("button", { name: "Add setting" }).first().click();
  const settingDialog = page.getByRole("dialog", { name: "Add setting" });
  await settingDialog.getByLabel("Key").fill("e2e.greeting");
  await settingDialog.getByLabel("Value", { exact: true }).fill("hello");
  await settingDialog.getByLabel("Instances may override").check();
  await settingDialog.getByRole("button", { name: "Save setting" }).click();
  await expect(settingDialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Setting e2e.greeting saved." })).toBeVisible();
  await expect(rowOf(page.getByRole("table", { name: "Organization settings" }), "e2e.greeting")).toContainText(
    '"hello"',
  );
  const effective = page.getByRole("table", { name: "Effective settings" });
  await expect(rowOf(effective, "e2e.greeting")).toContainText('"hello"');
  await expect(rowOf(effective, "e2e.greeting")).toContainText("Organization");
  await expect(rowOf(effective, platformKey)).toContainText("Platform");
  await expect(effective.getByRole("row", { name: /tier\.free/ })).toHaveCount(0);

  // LLM configs: the key goes in, only its last 4 characters come back.
  const secret = `sk-e2e-${id}-secret-7Q9Z`;
  await openSection(page, "LLM configs");
  await page.getByRole("button", { name: "Add LLM config" }).first().click();
  const llmDialog = page.getByRole("dialog", { name: "Add LLM config" });
  await llmDialog.getByLabel("Name", { exact: true }).fill("primary");
  await llmDialog.getByLabel("Provider").selectOption("anthropic");
  await llmDialog.getByLabel("API key").fill(secret);
  await llmDialog.getByRole("button", { name: "Add LLM config" }).click();
  await expect(llmDialog).toBeHidden();
  const llmRow = rowOf(page.getByRole("table", { name: "LLM configs" }), "primary");
  await expect(llmRow).toContainText("anthropic");
  await expect(llmRow).toContainText("7Q9Z");
  await expect(llmRow).toContainText("enabled");
  await expect(page.getByText(secret)).toHaveCount(0);
  expect(await page.content()).not.toContain(`sk-e2e-${id}`);

  // Editing keeps the provider read-only.
  await llmRow.getByRole("button", { name: "Edit primary" }).click();
  const editLlm = page.getByRole("dialog", { name: "Edit LLM config “primary”" });
  await expect(editLlm.getByLabel("Provider")).toHaveValue("anthropic");
  await expect(editLlm.getByLabel("Provider")).toHaveAttribute("readonly", "");
  await editLlm.getByLabel("Enabled").uncheck();
  await editLlm.getByRole("button", { name: "Save LLM config" }).click();
  await expect(editLlm).toBeHidden();
  await expect(llmRow).toContainText("disabled");

  // Orchestrators: create one, see its config_hash, and its effective config with sources.
  await openSection(page, "Orchestrators");
  await page.getByRole("button", { name: "Create orchestrator" }).first().click();
  const createBot = page.getByRole("dialog", { name: "Create orchestrator" });
  await createBot.getByLabel("Name", { exact: true }).fill("concierge");
  await createBot.getByLabel("Framework type").selectOption("openai_agents");
  await createBot.getByLabel("Mode").selectOption("coordinator");
  await createBot.getByLabel("Config").fill('{"temperature": 0.2}');
  await createBot.getByRole("button", { name: "Create orchestrator" }).click();
  await expect(createBot).toBeHidden();
  const botRow = rowOf(page.getByRole("table", { name: "Orchestrators" }), "concierge");
  await expect(botRow).toContainText("openai_agents");
  // Cells: framework, mode, tier, status, config hash, created.
  const hashCell = botRow.getByRole("cell").nth(4);
  await expect(hashCell).toHaveText(/^[0-9a-f]{16}$/);
  const hash = await hashCell.textContent();

  await botRow.getByRole("button", { name: "Open concierge" }).click();
  const detail = page.getByRole("dialog", { name: "Orchestrator “concierge”" });
  await expect(detail.getByLabel("Framework type")).toHaveValue("openai_agents");
  await expect(detail.getByLabel("Framework type")).toHaveAttribute("readonly", "");
  await expect(detail.getByLabel("Mode")).toHaveAttribute("readonly", "");
  await expect(detail.getByText(`Config hash: ${hash}`)).toBeVisible();
  const effectiveConfig = detail.getByRole("table", { name: "Effective config of concierge" });
  await expect(rowOf(effectiveConfig, "temperature")).toContainText("Instance");
  await expect(rowOf(effectiveConfig, "e2e.greeting")).toContainText("Organization");
  await expect(rowOf(effectiveConfig, platformKey)).toContainText("Platform");
  await detail.getByRole("button", { name: "Close" }).click();
  await expect(detail).toBeHidden();

  // Central points: refused on the free tier, with the server's words.
  await openSection(page, "Central points");
  await expect(page.getByRole("note", { name: "Tier required" })).toContainText(
    "Central points need the pro tier or higher.",
  );
  await page.getByRole("button", { name: "Create central point" }).first().click();
  const pointDialog = page.getByRole("dialog", { name: "Create central point" });
  await pointDialog.getByLabel("Name", { exact: true }).fill("front door");
  await pointDialog.getByLabel("Orchestrator").selectOption({ label: "concierge" });
  await pointDialog.getByRole("button", { name: "Create central point" }).click();
  const refusal = pointDialog.getByRole("alert");
  await expect(refusal).toHaveText("Central points need the pro tier or higher; this organization is on free.");
  await expect(refusal).toBeFocused();
  await expect(refusal).toBeInViewport();
  await pointDialog.getByRole("button", { name: "Cancel" }).click();

  // Upgrade through the subscription (the platform's decision), then the central point goes in.
  await openSection(page, "Profile");
  await page.getByLabel("Subscription tier").selectOption("pro");
  await page.getByRole("button", { name: "Update subscription" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Subscription updated." })).toBeVisible();

  await openSection(page, "Central points");
  await expect(page.getByRole("note", { name: "Tier required" })).toHaveCount(0);
  await page.getByRole("button", { name: "Create central point" }).first().click();
  await pointDialog.getByLabel("Name", { exact: true }).fill("front door");
  await pointDialog.getByLabel("Orchestrator").selectOption({ label: "concierge" });
  await pointDialog.getByRole("radio", { name: "public" }).check();
  await pointDialog.getByRole("button", { name: "Create central point" }).click();
  await expect(pointDialog).toBeHidden();
  const pointRow = rowOf(page.getByRole("table", { name: "Central points" }), "front door");
  await expect(pointRow).toContainText("concierge");
  await expect(pointRow).toContainText("public");

  // The orchestrator a live central point refers to cannot be deleted: the refusal says why.
  await openSection(page, "Orchestrators");
  await botRow.getByRole("button", { name: "Delete concierge" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Delete orchestrator “concierge”?" });
  await confirm.getByRole("button", { name: "Delete orchestrator" }).click();
  await expect(confirm.getByRole("alert")).toContainText("Central points refer to this instance: front door.");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  await expect(botRow).toBeVisible();
});

test("forms show what to fix next to the field, from the form's checks and from the server", async ({ page }) => {
  const id = suffix();
  await page.goto("/console/organizations");
  await page.getByRole("button", { name: "Create organization" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Create organization" });
  await dialog.getByLabel("Domain").fill("not a domain");
  await dialog.getByRole("button", { name: "Create organization" }).click();
  const name = dialog.getByLabel("Name", { exact: true });
  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveAccessibleDescription(/Name is required\./);
  await expect(name).toBeFocused();
  await expect(dialog.getByLabel("Domain")).toHaveAccessibleDescription(
    /Domain must be a domain name like example\.com\./,
  );
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();

  // A platform setting organizations may not override: the server's refusal lands on the key.
  const locked = `e2e.locked_${id}`;
  await page.goto("/console/settings");
  await page.getByRole("button", { name: "Add platform setting" }).first().click();
  const platformDialog = page.getByRole("dialog", { name: "Add platform setting" });
  await platformDialog.getByLabel("Key").fill(locked);
  await platformDialog.getByLabel("Value type").selectOption("boolean");
  await platformDialog.getByLabel("Value", { exact: true }).selectOption("true");
  await platformDialog.getByRole("button", { name: "Save platform setting" }).click();
  await expect(platformDialog).toBeHidden();

  await createOrganization(page, `E2E Forms ${id}`);
  await openSection(page, "Settings");
  await page.getByRole("button", { name: "Add setting" }).first().click();
  const settingDialog = page.getByRole("dialog", { name: "Add setting" });
  const key = settingDialog.getByLabel("Key");
  await key.fill(locked);
  await settingDialog.getByLabel("Value type").selectOption("boolean");
  await settingDialog.getByLabel("Value", { exact: true }).selectOption("false");
  await settingDialog.getByRole("button", { name: "Save setting" }).click();
  await expect(key).toHaveAccessibleDescription(/Key is set by the platform and not overridable\./);
  await expect(key).toBeFocused();
  await page.keyboard.press("Escape");

  // The config JSON editor checks its JSON before anything is sent.
  await openSection(page, "Orchestrators");
  await expect(page.getByText("No orchestrators yet")).toBeVisible();
  await page.getByRole("button", { name: "Create orchestrator" }).first().click();
  const createBot = page.getByRole("dialog", { name: "Create orchestrator" });
  await createBot.getByLabel("Name", { exact: true }).fill("bad config");
  const config = createBot.getByLabel("Config");
  await config.fill("{temperature: 0.2}");
  await createBot.getByRole("button", { name: "Create orchestrator" }).click();
  await expect(config).toHaveAccessibleDescription(/Config is not valid JSON/);
  await config.fill("[1, 2]");
  await createBot.getByRole("button", { name: "Create orchestrator" }).click();
  await expect(config).toHaveAccessibleDescription(/Config must be a JSON object/);
  // A key the tier above locks: the server names it.
  await config.fill(`{"${locked}": false}`);
  await createBot.getByRole("button", { name: "Create orchestrator" }).click();
  await expect(config).toHaveAccessibleDescription(
    new RegExp(`Config \\(${locked.replace(/\./g, "\\.")}\\) is set by a tier above and not overridable\\.`),
  );
  await page.keyboard.press("Escape");
  await expect(page.getByRole("row", { name: /bad config/ })).toHaveCount(0);
});

test("organizations are searched, filtered, paged, deleted and restored", async ({ page }) => {
  const id = suffix();
  const prefix = `E2E Paging ${id}`;
  const { db } = await services();
  for (let i = 0; i < 26; i++) {
    await db.organization.create({
      data: { name: `${prefix} ${String(i).padStart(2, "0")}`, subscription_tier: i === 0 ? "enterprise" : "free" },
    });
  }

  await page.goto("/console/organizations");
  const table = page.getByRole("table", { name: "Organizations" });
  // The search box queries once typing pauses: wait for that answer (the unfiltered first page
  // shows the newest organizations, which are these too).
  const searched = page.waitForResponse(
    (r) => r.url().includes("organizations.list") && decodeURIComponent(r.url()).includes(prefix),
  );
  await page.getByLabel("Search organizations").fill(prefix);
  await searched;
  await expect(table.getByRole("row", { name: new RegExp(prefix) })).toHaveCount(25);
  await page.getByRole("button", { name: "Show more organizations" }).click();
  await expect(table.getByRole("row", { name: new RegExp(prefix) })).toHaveCount(26);
  await expect(page.getByRole("button", { name: "Show more organizations" })).toHaveCount(0);

  await page.getByLabel("Tier").selectOption("enterprise");
  await expect(table.getByRole("row", { name: new RegExp(prefix) })).toHaveCount(1);
  await page.getByLabel("Tier").selectOption("");
  await page.getByLabel("Status").selectOption("suspended");
  await expect(page.getByText(`No organizations match “${prefix}”.`)).toBeVisible();
  await page.getByLabel("Status").selectOption("");

  // Delete from the profile, with confirmation; the list hides it until deleted ones are shown.
  const doomed = `${prefix} 07`;
  await table.getByRole("link", { name: doomed }).click();
  await expect(page.getByRole("heading", { level: 1, name: doomed })).toBeVisible();
  await page.getByRole("button", { name: "Delete organization" }).click();
  const confirm = page.getByRole("alertdialog", { name: `Delete “${doomed}”?` });
  await expect(confirm).toContainText("a sys_admin can restore the organization");
  await confirm.getByRole("button", { name: "Delete organization" }).click();
  await expect(page.getByRole("heading", { name: "This organization is deleted" })).toBeVisible();
  await expect(sections(page).getByRole("link")).toHaveText(["Profile"]);

  await page.goto("/console/organizations");
  await page.getByLabel("Search organizations").fill(doomed);
  await expect(page.getByText(`No organizations match “${doomed}”.`)).toBeVisible();
  await page.getByLabel("Show deleted organizations").check();
  const row = rowOf(table, doomed);
  await expect(row).toContainText("deleted");
  await row.getByRole("link", { name: doomed }).click();
  await page.getByRole("button", { name: "Restore organization" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Organization restored." })).toBeVisible();
  await expect(sections(page).getByRole("link")).toHaveCount(ORG_SECTION_COUNT);
});

test("the conversation viewer reads a member's conversations in order, a page at a time", async ({ page }) => {
  const id = suffix();
  const s = await services();
  const org = await s.createOrganization(s.ctx, { name: `E2E Conversations ${id}`, tier: "free", status: "active" });
  const member = await s.db.user.findFirstOrThrow({ where: { username: MEMBER.username } });
  await s.db.userOrgMembership.create({ data: { user_id: member.id, org_id: org.id } });
  const bot = await s.createOrchestrator(s.ctx, org.id, {
    name: "helpdesk",
    framework_type: "langgraph",
    mode: "supervisor",
    config: {},
    plugin_settings: {},
    tier: "demand",
    status: "active",
  });
  const conversation = await s.createConversation(s.ctx, org.id, {
    instance_id: bot.id,
    user_id: member.id,
    title: "Printer trouble",
  });
  const turn = "0192a3b4-c5d6-7e8f-9a0b-1c2d3e4f5a6b";
  const lines = Array.from({ length: 55 }, (_, i) => `line ${String(i + 1).padStart(2, "0")}`);
  await s.appendMessages(s.ctx, org.id, conversation.id, {
    messages: [
      ...lines.map((content, i) => ({
        role: i % 2 ? ("assistant" as const) : ("user" as const),
        content,
        turn_id: turn,
        source: "human" as const,
        metadata: {},
      })),
      { role: "intent" as const, content: "hidden intent", turn_id: turn, source: "system" as const, metadata: {} },
    ],
  });

  await page.goto(`/console/organizations/${org.id}/conversations`);
  await expect(page.getByText("Their conversations in this organization are listed here")).toBeVisible();
  await page.getByLabel("Search members").fill(MEMBER.username);
  await page.getByLabel("Member", { exact: true }).selectOption({ label: `E2E Member (${MEMBER.username})` });
  const list = page.getByRole("table", { name: `Conversations of ${MEMBER.username}` });
  await expect(rowOf(list, "Printer trouble")).toContainText("helpdesk");
  await list.getByRole("button", { name: "Read Printer trouble" }).click();

  const messages = page.getByRole("list", { name: "Messages of Printer trouble" }).getByRole("listitem");
  await expect(messages).toHaveCount(50);
  await expect(messages.first()).toContainText("line 01");
  await expect(messages.nth(1)).toContainText("assistant");
  await page.getByRole("button", { name: "Show more messages" }).click();
  await expect(messages).toHaveCount(55);
  await expect(messages.last()).toContainText("line 55");
  await expect(page.getByText("hidden intent")).toHaveCount(0);
  // Read-only: nothing on the page writes a message.
  await expect(page.getByRole("textbox", { name: /message/i })).toHaveCount(0);
});
