import { describe, expect, it } from "vitest";
import { cli } from "@/test/actors";
import { testDatabase } from "@/test/database";
import { seedRoles } from "@/test/fixtures";
import { listOrganizations } from "./organizations/service";
import { listRoles } from "./roles/service";
import { listUsers } from "./users/service";
import { readContext } from "@/server/db/context";

// The `q` search of organizations and users, as the console's live search sends it while a name is
// typed: three characters or more match anywhere, case aside; one or two match where a value or a
// word of it begins (see search.ts). Each on its own database, so the names below are all there is.

const { client } = await testDatabase();
await client.organization.createMany({
  data: [
    { name: "northwind-traders", display_name: "Northwind Traders", domain: "northwind.example" },
    { name: "contoso", display_name: "Contoso Pharma", domain: "contoso.example" },
    { name: "hooli", display_name: "Hooli XYZ", domain: null },
    { name: "per-cent", display_name: "100% Cotton_Co \\ Sons", domain: null },
  ],
});
await client.user.createMany({
  data: [
    { username: "ada", display_name: "Ada Lovelace", email: "ada@analytical.example" },
    { username: "grace", display_name: "Grace Hopper", email: "grace@navy.example" },
    { username: "kabir", display_name: "Kabir Das", email: null },
  ],
});

await seedRoles(client);
await client.role.create({ data: { name: "50%_off", scope: "org", description: "a name with wildcards" } });

const orgs = async (q: string) =>
  (await listOrganizations(readContext(cli), { limit: 50, q })).data.map((o) => o.name).sort();
const users = async (q: string) =>
  (await listUsers(readContext(cli), { limit: 50, q })).data.map((u) => u.username).sort();

describe("the q search of organizations", () => {
  it("matches three characters or more anywhere in the name, display name or domain, case aside", async () => {
    expect(await orgs("WIND")).toEqual(["northwind-traders"]);
    expect(await orgs("pharma")).toEqual(["contoso"]);
    expect(await orgs(".example")).toEqual(["contoso", "northwind-traders"]);
    expect(await orgs("xyz")).toEqual(["hooli"]);
    expect(await orgs("no such organization")).toEqual([]);
  });

  it("matches one or two characters where a value or a word of it begins", async () => {
    expect(await orgs("co")).toEqual(["contoso", "per-cent"]); // "Cotton_Co"
    expect(await orgs("tr")).toEqual(["northwind-traders"]); // "Traders", a word of the display name
    expect(await orgs("X")).toEqual(["hooli"]);
    expect(await orgs("oo")).toEqual([]); // inside "Hooli" and "Contoso" only
    expect(await orgs("qz")).toEqual([]);
  });

  it("takes LIKE's wildcards and escape character literally", async () => {
    expect(await orgs("%")).toEqual([]); // no value begins with it, nor a word
    expect(await orgs("0% c")).toEqual(["per-cent"]);
    expect(await orgs("n%w")).toEqual([]);
    expect(await orgs("n_rthwind")).toEqual([]);
    expect(await orgs("n_Co")).toEqual(["per-cent"]);
    expect(await orgs("\\ S")).toEqual(["per-cent"]);
    expect(await orgs("\\%")).toEqual([]);
  });

  it("matches within one value, never across two of a row's", async () => {
    // The name ends "traders" and the display name begins "Northwind", whatever joins them.
    expect(await orgs("traders northwind")).toEqual([]);
    expect(await orgs("traders\u001fnorthwind")).toEqual([]);
    expect(await orgs("traders\u001f")).toEqual([]);
  });
});

describe("the q search of users", () => {
  it("matches three characters or more anywhere in the username, display name or email", async () => {
    expect(await users("LOVE")).toEqual(["ada"]);
    expect(await users("navy.ex")).toEqual(["grace"]);
    expect(await users("abi")).toEqual(["kabir"]);
  });

  it("matches one or two characters where a value or a word of it begins", async () => {
    expect(await users("g")).toEqual(["grace"]);
    expect(await users("ho")).toEqual(["grace"]); // Hopper
    expect(await users("ab")).toEqual([]); // inside "kabir" only
  });
});

// The short lists (roles, members, service accounts, OAuth clients, models, instances) match their
// `q` anywhere, through the same literal condition.
describe("the q search of the short lists", () => {
  const roles = async (q: string) =>
    (await listRoles(readContext(cli), { limit: 50, q })).data.map((r) => r.name).sort();

  it("takes LIKE's wildcards and escape character literally", async () => {
    expect((await roles("admin")).length).toBeGreaterThan(1);
    expect(await roles("%")).toEqual(["50%_off"]);
    expect(await roles("m_n")).toEqual([]); // a wildcard would match "admin"
    expect(await roles("0%_o")).toEqual(["50%_off"]);
    expect(await roles("sys%admin")).toEqual([]);
    expect(await roles("\\")).toEqual([]);
  });
});
