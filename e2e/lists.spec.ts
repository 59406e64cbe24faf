import { expect, test, type Page } from "@playwright/test";
import { e2eDatabase } from "../scripts/e2e-env.mjs";
import { STORAGE_STATE } from "./accounts";
import { consolePages, segmentValues } from "./pages";

// The console's one list pattern, on every list screen: the filter bar "Filter …" (a search that
// filters as you type, no button), and an empty list that says either "nothing yet" with the
// screen's primary action, or (only while a filter is applied) "nothing matches" with
// "Clear filters". The screens are the console's pages, each said to be a list or not.

test.use({ storageState: STORAGE_STATE.admin });
// One test a screen, spread over the workers: they only read (a dialog opened is never submitted),
// each worker on an empty organization of its own.
test.describe.configure({ mode: "parallel" });

// The services reach the run's database through DATABASE_URL, read when first used.
process.env.DATABASE_URL = e2eDatabase().url;

interface ListScreen {
  /** What the filter bar filters ("Filter users"), when the list has one; "Search …" with `search`. */
  filters?: { noun: string; search: boolean };
  /** The primary action an empty list offers (checked where the list starts empty: an organization's). */
  create?: { name: string; role?: "button" | "link" };
}

/** Every console page: a list screen, or null for a page that is not one (with why). */
const SCREENS: Record<string, ListScreen | null> = {
  "/console": null, // sends to the overview
  "/console/sign-in": null,
  "/console/two-factor-setup": null,
  "/console/overview": null,
  "/console/account": null, // the signed-in user's own settings
  "/console/api-keys/[key_id]": null, // one key
  "/console/organizations/[orgId]": null, // one organization's profile
  "/console/roles/[role_id]": null, // the role editor
  "/console/roles/new": null,
  "/console/users/[user_id]": null, // one user
  "/console/invitations/[token]": null, // one invitation, opened from its link
  "/console/verify-email/[token]": null, // one emailed link
  "/console/api-keys": { filters: { noun: "API keys", search: false } },
  "/console/audit-log": { filters: { noun: "events", search: false } },
  "/console/models": { filters: { noun: "models", search: true } },
  "/console/oauth-clients": { filters: { noun: "OAuth clients", search: true } },
  "/console/organizations": { filters: { noun: "organizations", search: true } },
  "/console/roles": { filters: { noun: "roles", search: true } },
  "/console/users": { filters: { noun: "users", search: true } },
  "/console/plugins": {},
  "/console/plugins/[pid]": {},
  "/console/settings": {},
  "/console/webhooks": {},
  "/console/organizations/[orgId]/activity": { filters: { noun: "events", search: false } },
  "/console/organizations/[orgId]/members": {
    filters: { noun: "members", search: true },
    create: { name: "Add member" },
  },
  "/console/organizations/[orgId]/orchestrators": {
    filters: { noun: "orchestrators", search: true },
    create: { name: "Create orchestrator" },
  },
  // The search narrows the members whose conversations to read; with none, the way to add them.
  "/console/organizations/[orgId]/conversations": {
    filters: { noun: "members", search: true },
    create: { name: "Go to Members", role: "link" },
  },
  "/console/organizations/[orgId]/invitations": { create: { name: "Invite people" } },
  "/console/organizations/[orgId]/single-sign-on": { create: { name: "Add connection" } },
  "/console/organizations/[orgId]/directory-sync": { create: { name: "Create token" } },
  "/console/organizations/[orgId]/service-accounts": { create: { name: "Create service account" } },
  "/console/organizations/[orgId]/settings": { create: { name: "Add setting" } },
  "/console/organizations/[orgId]/llm-configs": { create: { name: "Add LLM config" } },
  "/console/organizations/[orgId]/central-points": { create: { name: "Create central point" } },
  "/console/organizations/[orgId]/webhooks": { create: { name: "Add endpoint" } },
};

/** A new organization, with nothing in it: each of its lists starts empty. */
async function emptyOrganization(): Promise<string> {
  const [{ systemActor }, { readContext }, { createOrganization }] = await Promise.all([
    import("../src/server/auth/actor"),
    import("../src/server/db/context"),
    import("../src/server/services/organizations/service"),
  ]);
  const org = await createOrganization(readContext(systemActor("e2e")), {
    name: `E2E Empty ${Date.now().toString(36)}`,
    tier: "free",
    status: "active",
  });
  return org.id;
}

test.afterAll(async () => {
  const { baseClient } = await import("../src/server/db/client");
  await baseClient().$disconnect();
});

const lists = Object.entries(SCREENS).filter((entry): entry is [string, ListScreen] => entry[1] !== null);
let urls: Record<string, string> = {};

test.beforeAll(async () => {
  const values: Record<string, string> = { ...(await segmentValues()), "[orgId]": await emptyOrganization() };
  urls = Object.fromEntries(
    lists.map(([pattern]) => [pattern, pattern.replace(/\[[^\]]+\]/g, (segment) => values[segment] ?? segment)]),
  );
});

const filterBars = (page: Page) => page.getByRole("main").getByRole("search", { name: /^Filter / });
const noMatch = (page: Page) => page.getByRole("main").getByText(/^No .+ match/);

test("every console page is said to be a list screen or not", () => {
  expect(Object.keys(SCREENS).sort()).toEqual(consolePages());
});

/** What a screen's test checks, for its title. */
function checks({ filters, create }: ListScreen): string {
  return [
    filters ? `one filter bar, "Filter ${filters.noun}"` : "no filter bar",
    'no "nothing matches" unfiltered',
    ...(create ? [`an empty list says nothing is there yet and offers "${create.name}"`] : []),
    ...(filters?.search ? ['a search that matches nothing says so, and "Clear filters" brings the list back'] : []),
  ].join("; ");
}

// One test a screen, one visit: the checks that only look come first, then the search, then the
// empty list's action (it opens a dialog over the page).
for (const [pattern, screen] of lists) {
  test(`${pattern}: ${checks(screen)}`, async ({ page }) => {
    await page.goto(urls[pattern]!);
    await expect(page.getByRole("heading", { level: 1 }).first()).toBeVisible();
    // The list (or what stands for it) is in once nothing is loading.
    await expect(
      page
        .getByRole("main")
        .getByRole("status")
        .filter({ hasText: /^Loading/ }),
    ).toHaveCount(0);
    if (!screen.filters) {
      await expect(filterBars(page)).toHaveCount(0);
    } else {
      const { noun, search } = screen.filters;
      await expect(filterBars(page)).toHaveCount(1);
      const bar = page.getByRole("search", { name: `Filter ${noun}` });
      await expect(bar).toBeVisible();
      // Filters apply as they change: no Search or Apply button.
      await expect(bar.getByRole("button")).toHaveCount(0);
      await expect(bar.getByRole("searchbox", { name: `Search ${noun}` })).toHaveCount(search ? 1 : 0);
    }
    // Before anyone filtered, a list never says that nothing matches.
    await expect(noMatch(page)).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Clear filters" })).toHaveCount(0);

    const emptyState = screen.create
      ? page
          .getByRole("status")
          .filter({ has: page.getByRole(screen.create.role ?? "button", { name: screen.create.name }) })
      : undefined;
    if (emptyState) await expect(emptyState).toBeVisible();

    if (screen.filters?.search) {
      const { noun } = screen.filters;
      const search = page
        .getByRole("search", { name: `Filter ${noun}` })
        .getByRole("searchbox", { name: `Search ${noun}` });
      const nothing = `zz-nothing-${Date.now().toString(36)}`;
      await search.fill(nothing);
      const state = page.getByRole("status").filter({ hasText: `No ${noun} match “${nothing}”.` });
      await expect(state).toBeVisible();
      await state.getByRole("button", { name: "Clear filters" }).click();
      await expect(search).toHaveValue("");
      await expect(noMatch(page)).toHaveCount(0);
    }

    if (emptyState && (screen.create!.role ?? "button") === "button") {
      await expect(emptyState).toBeVisible();
      // The action is the screen's own: it opens the dialog that creates one.
      await emptyState.getByRole("button", { name: screen.create!.name }).click();
      await expect(page.getByRole("dialog")).toBeVisible();
    }
  });
}
