import { describe, expect, it } from "vitest";
import { cli, sessionActor } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { join, seedRoles, grant, roleId } from "@/test/fixtures";
import type { Actor } from "@/server/auth/actor";
import { listOrganizations } from "./organizations/service";
import { listUsers } from "./users/service";
import { readContext } from "@/server/db/context";

// The `q` search's pages where the matches lie: all among the oldest rows, among the newest, many,
// few. A search reads a bounded number of the newest rows first, then every match through the
// trigram index (search.ts); either way a page is the newest matches after the cursor, and the
// pages together are every match once. Rows get ids in the order of their number (ids are
// UUIDv7, time-ordered: a larger one is newer), so the expected order is known.

const { client } = await testDatabase();
await seedRoles(client);

const ROWS = 400;
const idOf = (i: number, kind: number) => `00000000-0000-7000-8${kind}00-${i.toString(16).padStart(12, "0")}`;
// acme-1 … acme-400, oldest first; the 30 oldest are "Pioneer" by their display name.
await client.organization.createMany({
  data: Array.from({ length: ROWS }, (_, n) => {
    const i = n + 1;
    return { id: idOf(i, 1), name: `acme-${i}`, display_name: i <= 30 ? `Pioneer ${i}` : `Acme ${i}` };
  }),
});
await client.user.createMany({
  data: Array.from({ length: ROWS }, (_, n) => {
    const i = n + 1;
    return { id: idOf(i, 2), username: `user-${i}`, display_name: i <= 30 ? `Ada Lovelace ${i}` : `User ${i}` };
  }),
});

type Lister = (query: { limit: number; q: string; cursor?: string }) => Promise<{
  data: { name?: string; username?: string }[];
  next_cursor: string | null;
}>;
const organizations: Lister = (query) => listOrganizations(readContext(cli), query);
const users: Lister = (query) => listUsers(readContext(cli), query);

/** Every page of a search, followed by its cursors: the names of each page. */
async function pages(list: Lister, q: string, limit: number): Promise<string[][]> {
  const found: string[][] = [];
  let cursor: string | undefined;
  for (let page = 0; page < ROWS; page++) {
    const { data, next_cursor } = await list({ q, limit, ...(cursor ? { cursor } : {}) });
    found.push(data.map((row) => row.name ?? row.username ?? ""));
    if (!next_cursor) return found;
    cursor = next_cursor;
  }
  throw new Error("the pages did not end");
}

const chunks = (names: string[], size: number) =>
  Array.from({ length: Math.ceil(names.length / size) }, (_, k) => names.slice(k * size, (k + 1) * size));
/** The names of rows numbered `numbers`, newest (largest) first. */
const newestFirst = (prefix: string, numbers: number[]) =>
  [...numbers].sort((a, b) => b - a).map((i) => `${prefix}${i}`);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, k) => from + k);

describe("a search whose matches are all among the oldest rows", () => {
  it("pages through them newest first, each once, to the end", async () => {
    const expected = newestFirst("acme-", range(1, 30));
    expect(await pages(organizations, "pioneer", 7)).toEqual(chunks(expected, 7));
    expect(await pages(users, "lovelace", 7)).toEqual(chunks(newestFirst("user-", range(1, 30)), 7));
  });

  it("finds the oldest matches of a name among many (acme-1 among acme-N)", async () => {
    // acme-1, acme-10 … acme-19 and acme-100 … acme-199: the newest 201 rows hold none.
    const expected = newestFirst("acme-", [1, ...range(10, 19), ...range(100, 199)]);
    expect(await pages(organizations, "acme-1", 20)).toEqual(chunks(expected, 20));
    expect(await pages(users, "USER-1", 50)).toEqual(
      chunks(newestFirst("user-", [1, ...range(10, 19), ...range(100, 199)]), 50),
    );
    // A page of 5 reads the newest 100 rows, which hold none: every page comes from the indexes.
    expect(await pages(organizations, "acme-1", 5)).toEqual(chunks(expected, 5));
  });

  it("matches one or two characters where a word begins", async () => {
    expect((await pages(organizations, "pi", 50)).flat()).toEqual(newestFirst("acme-", range(1, 30)));
    expect((await pages(users, "lo", 50)).flat()).toEqual(newestFirst("user-", range(1, 30)));
  });
});

describe("a search whose matches are many, or among the newest rows", () => {
  it("pages through every row a search matches, newest first", async () => {
    const expected = newestFirst("acme-", range(1, ROWS));
    expect(await pages(organizations, "acme", 50)).toEqual(chunks(expected, 50));
    expect(await pages(organizations, "ac", 100)).toEqual(chunks(expected, 100));
  });

  it("gives each match once when the newest rows hold some but not a page of them", async () => {
    // acme-39 and acme-390 … acme-399: ten of the eleven among the newest rows.
    const expected = newestFirst("acme-", [39, ...range(390, 399)]);
    expect(await pages(organizations, "acme-39", 20)).toEqual([expected]);
    expect(await pages(organizations, "acme-39", 4)).toEqual(chunks(expected, 4));
  });
});

describe("a search with the list's other conditions", () => {
  it("combines with the filters, soft deletion and what the actor may read", async () => {
    await client.organization.updateMany({
      where: { name: { in: ["acme-3", "acme-5"] } },
      data: { status: "suspended" },
    });
    await client.organization.updateMany({ where: { name: "acme-4" }, data: { is_deleted: true } });
    const names = async (query: Parameters<typeof listOrganizations>[1], actor: Actor = cli) =>
      (await listOrganizations(readContext(actor), query)).data.map((o) => o.name);

    expect(await names({ limit: 50, q: "pioneer", status: "suspended" })).toEqual(["acme-5", "acme-3"]);
    expect(await names({ limit: 50, q: "pioneer 4" })).toEqual([]);
    expect(await names({ limit: 50, q: "pioneer 4", include_deleted: true })).toEqual(["acme-4"]);

    const user = await client.user.findFirstOrThrow({ where: { username: "user-2" } });
    const org = await client.organization.findFirstOrThrow({ where: { name: "acme-7" } });
    await join(client, user.id, org.id);
    await grant(client, user.id, await roleId(client, "org_member"), org.id);
    const member = await sessionActor(client, user.id);
    expect(await names({ limit: 50, q: "pioneer" }, member)).toEqual(["acme-7"]);
    expect(await names({ limit: 50, q: "acme-2" }, member)).toEqual([]);
  });
});

describe("a search with punctuation", () => {
  it("does not match a value that only reads the same with its punctuation written as x", async () => {
    // The indexes hold names with punctuation written as x (search.ts): acmex15 is found by them too.
    await client.organization.create({ data: { id: idOf(ROWS + 1, 1), name: "acmex15", display_name: "Lookalike" } });
    expect((await pages(organizations, "acme-15", 2)).flat()).toEqual(newestFirst("acme-", [15, ...range(150, 159)]));
    expect((await pages(organizations, "acmex15", 2)).flat()).toEqual(["acmex15"]);
    expect((await pages(organizations, "e-1", 50)).flat()).toHaveLength(111);
  });
});
