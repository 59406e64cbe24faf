import { expect, test as setup } from "@playwright/test";
import { e2eDatabase } from "../scripts/e2e-env.mjs";
import { hashPassword } from "../src/server/auth/passwords";
import { createBaseClient } from "../src/server/db/client";
import { dataLayer } from "../src/server/db/data-layer";
import { ADMIN, MEMBER, signIn, STORAGE_STATE } from "./accounts";
import { segmentValues } from "./pages";

// Runs once before the flows, against the server Playwright started: adds the data the flows need
// to the run's database, then signs in once per role and keeps the signed-in state for reuse.

setup("seed a user who is not a sys_admin", async () => {
  const client = createBaseClient(e2eDatabase().url, { poolMax: 1 });
  try {
    const db = dataLayer("system:e2e", { client });
    if (await db.user.findFirst({ where: { username: MEMBER.username } })) return;
    const user = await db.user.create({
      data: {
        username: MEMBER.username,
        display_name: "E2E Member",
        password_hash: await hashPassword(MEMBER.password),
      },
    });
    const org = await db.organization.create({ data: { name: "E2E organization" } });
    const orgMember = await db.role.findUniqueOrThrow({ where: { name: "org_member" } });
    await db.userOrgMembership.create({ data: { user_id: user.id, org_id: org.id } });
    await db.userRole.create({ data: { user_id: user.id, role_id: orgMember.id, org_id: org.id } });
  } finally {
    await client.$disconnect();
  }
});

// Made here, before the flows run side by side: two page-wide checks making them at once would clash.
setup("make a real value for every page's dynamic segments", async () => {
  await segmentValues();
});

setup("sign in as the sys_admin", async ({ page }) => {
  await signIn(page, ADMIN);
  // The first sign-in of a fresh server hashes the password and renders the overview cold: on a
  // machine shared with other work that can take longer than the default wait.
  await expect(page.getByRole("heading", { level: 1, name: "Overview" })).toBeVisible({ timeout: 20_000 });
  await page.context().storageState({ path: STORAGE_STATE.admin });
});

setup("sign in as the member", async ({ page }) => {
  await signIn(page, MEMBER);
  await expect(page.getByRole("heading", { name: "No access to the console" })).toBeVisible();
  await page.context().storageState({ path: STORAGE_STATE.member });
});
