import { readdirSync } from "node:fs";
import path from "node:path";
import { e2eDatabase } from "../scripts/e2e-env.mjs";
import { generateKey } from "../src/server/auth/api-key-format";
import { createBaseClient } from "../src/server/db/client";
import { dataLayer } from "../src/server/db/data-layer";
import { ADMIN } from "./accounts";

// Every page of the console, found from the app's folders (so a new page is covered without anyone
// remembering to), and a real value for each dynamic segment: what the page-wide checks walk.

const CONSOLE = path.join(process.cwd(), "src/app/console");

/** Every page's route pattern under /console, route groups left out: "/console/users/[user_id]". */
export function consolePages(dir = CONSOLE, route = "/console"): string[] {
  const pages: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && entry.name === "page.tsx") pages.push(route);
    if (!entry.isDirectory()) continue;
    const segment = /^\(.*\)$/.test(entry.name) ? "" : `/${entry.name}`;
    pages.push(...consolePages(path.join(dir, entry.name), route + segment));
  }
  return pages.sort();
}

/** A real value for each dynamic segment, from the run's database (a key and a plugin made if none). */
export async function segmentValues(): Promise<Record<string, string>> {
  const client = createBaseClient(e2eDatabase().url, { poolMax: 1 });
  try {
    const db = dataLayer("system:e2e", { client });
    const admin = await db.user.findFirstOrThrow({ where: { username: ADMIN.username } });
    const key =
      (await db.apiKey.findFirst({ where: { user_id: admin.id } })) ??
      (await (async () => {
        const { hash, prefix } = generateKey();
        return db.apiKey.create({
          data: {
            user_id: admin.id,
            name: "page weight",
            key_hash: hash,
            key_prefix: prefix,
            scopes: ["svc:org:read"],
          },
        });
      })());
    const plugin =
      (await db.plugin.findFirst()) ??
      (await db.plugin.create({
        data: { source: "system", pid: "page-weight", version: "1.0.0", name: "Page weight", is_latest: true },
      }));
    return {
      "[orgId]": (await db.organization.findFirstOrThrow()).id,
      "[user_id]": admin.id,
      "[role_id]": (await db.role.findFirstOrThrow({ where: { name: "org_member" } })).id,
      "[key_id]": key.id,
      "[pid]": plugin.pid,
    };
  } finally {
    await client.$disconnect();
  }
}

let values: Promise<Record<string, string>> | undefined;

/** A console page's URL in this run: its pattern with a real value in each dynamic segment. */
export async function consoleUrl(pattern: string): Promise<string> {
  const known = await (values ??= segmentValues());
  return pattern.replace(/\[[^\]]+\]/g, (segment) => known[segment] ?? segment);
}
